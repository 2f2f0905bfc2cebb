#include "mrwb_ui/trajectory_plot_view.hpp"

#include <QPainter>
#include <algorithm>
#include <cmath>
#include <exception>

#include "mrwb/recon/undersample.hpp"
#include "mrwb/scenario/scenario_sequence.hpp"
#include "mrwb/sequence/sequence_scenario.hpp"
#include "mrwb_ui/workbench_style.hpp"

namespace mrwb::ui {

namespace {
}  // namespace

TrajectoryPlotView::TrajectoryPlotView(QWidget* parent) : QWidget(parent) { setMinimumSize(240, 240); }

void TrajectoryPlotView::setScenario(const mrwb::Scenario& scenario) {
  const SequenceSpec& q = scenario.sequence;
  if (q.trajectory != Trajectory::Cartesian) {  // radial / spiral: the samples core's trajectory builder gives
    try {
      setTrajectory(seq::scenario_trajectory(scenario), q.fov_m, QString::fromStdString(name_of(q.trajectory)));
    } catch (const std::exception& e) {  // nothing to plot; the message says why
      cartesian_ = false;
      kx_.clear();
      ky_.clear();
      kind_ = QString::fromStdString(e.what());
      update();
    }
    return;
  }
  // The lines the sequence builder plays (regular comb, or the variable-density pattern).
  std::vector<std::uint8_t> flags;
  QString error;
  try {
    flags = seq::cartesian_line_flags(seq::cartesian_params(q));
  } catch (const std::exception& e) {  // invalid R / ACS: show full sampling and say why
    flags.assign(q.matrix, kLineAcquired | kLineImaging);
    error = QString::fromStdString(e.what());
  }
  setCartesian(q.matrix, q.matrix, q.fov_m, q.fov_m, std::move(flags));
  const QString pattern = q.undersampling == "regular" ? QString() : tr(", %1").arg(QString::fromStdString(q.undersampling));
  kind_ = error.isEmpty() ? tr("Cartesian, R = %1, %2 ACS lines%3").arg(q.acceleration).arg(q.acs_lines).arg(pattern) : error;
  update();
}

void TrajectoryPlotView::setRawData(const mrwb::RawData& raw) {
  if (raw.cartesian()) {
    std::vector<std::uint8_t> flags(raw.ny);
    for (int j = 0; j < raw.ny; ++j) flags[j] = raw.flags(j);
    setCartesian(raw.nx, raw.ny, raw.fov_x_m, raw.fov_y_m, std::move(flags));
    kind_ = tr("Cartesian raw data, R = %1").arg(raw.accel_R);
    update();
    return;
  }
  noncart::Trajectory t;
  t.dims = raw.traj_dims;
  t.readouts = raw.ny;
  t.samples = raw.nx;
  t.k = raw.traj;
  setTrajectory(t, raw.fov_x_m, QString::fromStdString(raw.trajectory_type.empty() ? "non-Cartesian" : raw.trajectory_type));
}

void TrajectoryPlotView::setTrajectory(const mrwb::noncart::Trajectory& t, double fov_m, const QString& kind) {
  cartesian_ = false;
  kind_ = tr("%1, %2 readouts of %3 samples").arg(kind).arg(t.readouts).arg(t.samples);
  kx_.clear();
  ky_.clear();
  samplesPerReadout_ = t.samples;
  const double scale = fov_m > 0 ? 1.0 / fov_m : 1.0;  // cycles per FOV -> 1/m
  kmax_ = 1e-12;
  for (std::size_t i = 0; t.dims >= 2 && i * t.dims + 1 < t.k.size(); ++i) {
    kx_.push_back(static_cast<float>(t.k[i * t.dims] * scale));
    ky_.push_back(static_cast<float>(t.k[i * t.dims + 1] * scale));
    kmax_ = std::max({kmax_, std::abs(double(kx_.back())), std::abs(double(ky_.back()))});
  }
  update();
}

void TrajectoryPlotView::setCartesian(int nx, int ny, double fov_x_m, double fov_y_m, std::vector<std::uint8_t> flags) {
  cartesian_ = true;
  kx_.clear();
  ky_.clear();
  nx_ = nx;
  dkx_ = fov_x_m > 0 ? 1.0 / fov_x_m : 1.0;
  const double dky = fov_y_m > 0 ? 1.0 / fov_y_m : 1.0;
  kxMin_ = -(nx / 2) * dkx_;
  lineKy_.resize(ny);
  for (int j = 0; j < ny; ++j) lineKy_[j] = (j - ny / 2) * dky;  // centred FFT convention: k0 at n/2
  lineFlags_ = std::move(flags);
  kmax_ = std::max((nx / 2) * dkx_, (ny / 2) * dky);
}

int TrajectoryPlotView::acquiredLines() const {
  return static_cast<int>(std::count_if(lineFlags_.begin(), lineFlags_.end(), [](std::uint8_t f) { return f & kLineAcquired; }));
}

int TrajectoryPlotView::calibrationLines() const {
  return static_cast<int>(std::count_if(lineFlags_.begin(), lineFlags_.end(), [](std::uint8_t f) { return f & kLineCalibration; }));
}

void TrajectoryPlotView::paintEvent(QPaintEvent*) {
  QPainter p(this);
  p.setRenderHint(QPainter::Antialiasing);
  p.fillRect(rect(), kPlotBackground);
  const int margin = 56;
  const double side = std::max(10, std::min(width(), height() - 24) - 2 * margin + 24);
  const QRectF plot((width() - side) / 2 + 12, 28, side, side);
  const double km = kmax_ * 1.05;
  auto map = [&](double kx, double ky) {
    return QPointF(plot.center().x() + kx / km * plot.width() / 2, plot.center().y() - ky / km * plot.height() / 2);
  };
  p.setPen(kPlotText);
  p.drawText(QRectF(0, 4, width(), 20), Qt::AlignHCenter, tr("k-space trajectory — %1").arg(kind_));

  if (cartesian_) {
    const bool dots = nx_ <= 64;
    for (std::size_t j = 0; j < lineKy_.size(); ++j) {
      const std::uint8_t f = j < lineFlags_.size() ? lineFlags_[j] : 0;
      const QColor c = lineStatusColor(f);
      p.setPen(QPen(c, (f & kLineAcquired) ? 1.2 : 0.8, (f & kLineAcquired) ? Qt::SolidLine : Qt::DashLine));
      const QPointF a = map(kxMin_, lineKy_[j]), b = map(kxMin_ + (nx_ - 1) * dkx_, lineKy_[j]);
      p.drawLine(a, b);
      if (dots && (f & kLineAcquired)) {
        p.setBrush(c);
        for (int i = 0; i < nx_; ++i) p.drawEllipse(map(kxMin_ + i * dkx_, lineKy_[j]), 1.2, 1.2);
        p.setBrush(Qt::NoBrush);
      }
    }
    // Legend.
    int y = static_cast<int>(plot.bottom()) + 30;
    int x = static_cast<int>(plot.left());
    const std::pair<QColor, QString> legend[] = {{lineStatusColor(kLineAcquired), tr("acquired")},
                                                 {lineStatusColor(kLineCalibration), tr("ACS")},
                                                 {lineStatusColor(0), tr("skipped")}};
    for (const auto& [c, label] : legend) {
      p.fillRect(QRect(x, y - 9, 14, 8), c);
      p.setPen(kPlotText);
      p.drawText(QPoint(x + 18, y), label);
      x += 100;
    }
  } else {
    p.setPen(Qt::NoPen);
    for (std::size_t i = 0; i < kx_.size(); ++i) {
      const int readout = samplesPerReadout_ > 0 ? static_cast<int>(i / samplesPerReadout_) : 0;
      p.setBrush(QColor::fromHsv((readout * 47) % 360, 160, 240));
      p.drawEllipse(map(kx_[i], ky_[i]), 1.0, 1.0);
    }
  }
  // Axes through k = 0 and ticks at ±kmax.
  p.setBrush(Qt::NoBrush);
  p.setPen(QPen(kPlotAxis, 1));
  p.drawRect(plot);
  p.drawLine(map(-km, 0), map(km, 0));
  p.drawLine(map(0, -km), map(0, km));
  p.setPen(kPlotText);
  const QString kmText = QString::number(kmax_, 'f', 0);
  p.drawText(QRectF(plot.right() - 60, plot.bottom() + 2, 60, 16), Qt::AlignRight, kmText);
  p.drawText(QRectF(plot.left(), plot.bottom() + 2, 60, 16), Qt::AlignLeft, "-" + kmText);
  p.drawText(QRectF(plot.left(), plot.bottom() + 2, plot.width(), 16), Qt::AlignHCenter, tr("kx [1/m]"));
  p.save();
  p.translate(plot.left() - 8, plot.center().y());
  p.rotate(-90);
  p.drawText(QRectF(-plot.height() / 2, -18, plot.height(), 16), Qt::AlignHCenter, tr("ky [1/m]"));
  p.restore();
}

}  // namespace mrwb::ui
