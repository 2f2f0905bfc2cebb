#pragma once
// Each receive coil's sensitivity (core: loop_coil_sensitivities / uniform_coil_sensitivities) as a
// tile in a grid: magnitude (one shared scale, colorbar) or phase (cyclic colours, -pi .. pi).
// Computed in a worker thread (Biot–Savart over every pixel grows with coils x matrix^2).
#include <QImage>
#include <QString>
#include <QWidget>
#include <complex>
#include <memory>
#include <vector>

#include "mrwb/base/raw_data.hpp"
#include "mrwb/scenario/scenario.hpp"
#include "mrwb_ui/background_job.hpp"

class QComboBox;
class QLabel;

namespace mrwb::ui {

class CoilMapCanvas;

class CoilMapView : public QWidget {
  Q_OBJECT
 public:
  enum class Display { Magnitude, Phase };
  // Which maps: the simulator's coils, the same divided by their root sum of squares (the normalisation
  // SENSE and ESPIRiT maps carry), or ESPIRiT's estimate from the last raw data's calibration lines
  // (Uecker et al. 2014).
  enum class Source { True, TrueNormalised, Espirit };
  explicit CoilMapView(QWidget* parent = nullptr);
  ~CoilMapView() override;

  // Recomputes the maps for the scenario's coils on the image grid (at most maxDisplayMatrix pixels
  // across); the result arrives asynchronously (mapsReady).
  void setScenario(const mrwb::Scenario& scenario);
  void setDisplay(Display display);
  void setSource(Source source);
  Source source() const { return source_; }
  // The raw data ESPIRiT estimates from (one Cartesian slice; a volume's central plane is used).
  void setRawData(const mrwb::RawData& raw);
  Display display() const { return display_; }

  bool busy() const { return worker_->busy(); }
  int coilCount() const { return ncoils_; }
  int mapSize() const { return n_; }
  QString errorText() const { return error_; }
  const std::vector<std::complex<float>>& maps() const { return sens_; }  // [coil][y][x] as shown
  // Tile of coil c as shown (for tests and export).
  QImage tile(int coil) const;

  static constexpr int maxDisplayMatrix = 128;

 signals:
  void mapsReady();

 private:
  void start();
  void onFinished();
  void rebuildTiles();

  mrwb::Scenario scenario_;
  Display display_ = Display::Magnitude;
  Source source_ = Source::True;
  std::shared_ptr<const mrwb::RawData> raw_;
  BackgroundJob* worker_;
  bool restart_ = false;
  struct Result;
  std::shared_ptr<Result> pending_;
  std::vector<std::complex<float>> sens_;  // [coil][y][x]
  int ncoils_ = 0, n_ = 0;
  float maxMagnitude_ = 0;
  QString error_;
  std::vector<QImage> tiles_;

  QComboBox* displayBox_;
  QComboBox* sourceBox_;
  QLabel* status_;
  CoilMapCanvas* canvas_;
};

}  // namespace mrwb::ui
