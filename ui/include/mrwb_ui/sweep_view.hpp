#pragma once
// The Sweep panel: one scenario field over a range (core's run_sweep in a worker, with progress and
// Cancel), the reconstructions as a strip of thumbnails and a plot of PSNR, SSIM or the mean signal of a
// region against the field; exported as PNG (strip and plot) and CSV (core's sweep_csv).
#include <QWidget>
#include <functional>
#include <memory>
#include <string>

#include "mrwb/pipeline/parameter_sweep.hpp"
#include "mrwb/scenario/scenario.hpp"

class QComboBox;
class QDoubleSpinBox;
class QHBoxLayout;
class QLabel;
class QProgressBar;
class QPushButton;
class QSpinBox;

namespace mrwb::ui {

class BackgroundJob;
class SweepPlot;

class SweepView : public QWidget {
  Q_OBJECT
 public:
  explicit SweepView(QWidget* parent = nullptr);
  ~SweepView() override;

  void setScenario(const mrwb::Scenario& s);
  // The field by its scenario key, the range in the shown units (ms for TE, mL/s for inflow, ...).
  bool setField(const QString& key);
  void setRange(double from, double to, int points);
  // Pixels [x0, x1) x [y0, y1) of the reconstruction; all 0: the whole image.
  void setRegion(int x0, int y0, int x1, int y1);
  // Plotted quantity: 0 PSNR, 1 SSIM, 2 region mean.
  void setPlotted(int quantity);
  bool start();
  void cancel();
  bool busy() const;

  const mrwb::SweepResult& result() const { return result_; }
  int imageCount() const;        // thumbnails in the strip
  int plottedPointCount() const;
  QString lastError() const { return error_; }
  // Atomic writes (temporary file, then rename); false with lastError() on failure.
  bool exportCsv(const QString& path);
  bool exportPng(const QString& path);

 signals:
  void sweepFinished(bool ok);

 private:
  void onFinished();
  void showResult();
  bool writeAtomically(const QString& path, const std::function<bool(const std::string& temp)>& write);

  mrwb::Scenario scenario_;
  mrwb::SweepResult result_;
  std::shared_ptr<mrwb::SweepResult> pending_;
  QString error_;
  BackgroundJob* job_ = nullptr;
  QComboBox* field_ = nullptr;
  QDoubleSpinBox* from_ = nullptr;
  QDoubleSpinBox* to_ = nullptr;
  QSpinBox* points_ = nullptr;
  QSpinBox* region_[4] = {};
  QComboBox* plotted_ = nullptr;
  QPushButton* run_ = nullptr;
  QPushButton* cancel_ = nullptr;
  QProgressBar* progress_ = nullptr;
  QLabel* status_ = nullptr;
  QWidget* results_ = nullptr;  // strip and plot: what the PNG shows
  QHBoxLayout* strip_ = nullptr;
  SweepPlot* plot_ = nullptr;
};

}  // namespace mrwb::ui
