#pragma once
// The k-space sample positions [1/m]: Cartesian lines of the scenario (acquired, ACS and skipped lines
// marked, sampling rule from core's undersample_cartesian) or the trajectory of non-Cartesian raw data
// (radial, spiral). QPainter; the view only draws.
#include <QString>
#include <QWidget>
#include <cstdint>
#include <vector>

#include "mrwb/base/raw_data.hpp"
#include "mrwb/scenario/scenario.hpp"
#include "mrwb/sequence/trajectory.hpp"

namespace mrwb::ui {

class TrajectoryPlotView : public QWidget {
  Q_OBJECT
 public:
  explicit TrajectoryPlotView(QWidget* parent = nullptr);

  // Cartesian: matrix lines of matrix samples over the scenario's FOV, R and ACS from the sequence.
  void setScenario(const mrwb::Scenario& scenario);
  // The sampling of raw data: its trajectory (non-Cartesian) or its line flags (Cartesian).
  void setRawData(const mrwb::RawData& raw);
  // A non-Cartesian trajectory in cycles per FOV (noncart::radial_2d, spiral_2d) over fov_m.
  void setTrajectory(const mrwb::noncart::Trajectory& trajectory, double fov_m, const QString& kind);

  // What is plotted, for tests and the status line.
  bool cartesian() const { return cartesian_; }
  int acquiredLines() const;
  int calibrationLines() const;
  std::size_t sampleCount() const { return kx_.size(); }
  QString kindText() const { return kind_; }

  QSize sizeHint() const override { return {480, 480}; }

 protected:
  void paintEvent(QPaintEvent* e) override;

 private:
  void setCartesian(int nx, int ny, double fov_x_m, double fov_y_m, std::vector<std::uint8_t> flags);

  bool cartesian_ = true;
  QString kind_;
  // Cartesian: lines along kx; ky per line [1/m], flags per line.
  int nx_ = 0;
  double dkx_ = 0, kxMin_ = 0;
  std::vector<double> lineKy_;
  std::vector<std::uint8_t> lineFlags_;
  // Non-Cartesian: every sample [1/m], samples per readout.
  std::vector<float> kx_, ky_;
  int samplesPerReadout_ = 0;
  double kmax_ = 1;
};

}  // namespace mrwb::ui
