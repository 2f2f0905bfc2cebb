#include "mrwb_ui/kspace_view.hpp"

#include <QPainter>
#include <algorithm>
#include <cmath>

#include "mrwb_ui/workbench_style.hpp"

namespace mrwb::ui {

namespace {
constexpr int kStripPx = 8;  // the line marks left of the image
}  // namespace

KspaceView::KspaceView(QWidget* parent) : QWidget(parent) {
  setMinimumSize(200, 200);
  clear();
}

void KspaceView::clear() {
  image_ = QImage();
  flags_.clear();
  counts_ = {};
  message_ = tr("Run a Cartesian scenario to see its k-space");
  update();
}

void KspaceView::setRawData(const mrwb::RawData& raw) {
  clear();
  if (!raw.cartesian()) {
    message_ = tr("Non-Cartesian k-space: its samples are in the Trajectory panel");
    update();
    return;
  }
  const int nx = raw.nx, ny = raw.ny;
  if (nx <= 0 || ny <= 0 || raw.kspace.size() < static_cast<std::size_t>(raw.ncoils) * nx * ny) return;
  // Root sum of squares over the coils of the first slice / partition (the run's central one).
  std::vector<double> mag(static_cast<std::size_t>(nx) * ny, 0.0);
  for (int c = 0; c < raw.ncoils; ++c)
    for (int y = 0; y < ny; ++y)
      for (int x = 0; x < nx; ++x) mag[static_cast<std::size_t>(y) * nx + x] += std::norm(raw.kspace[raw.index(c, 0, 0, y, x)]);
  double peak = 0;
  for (double& v : mag) peak = std::max(peak, v = std::sqrt(v));
  // log(1 + |k| / floor) over the range a display shows: 5 decades below the peak.
  const double floor = peak > 0 ? peak * 1e-5 : 1.0, top = std::log1p(peak / floor);
  image_ = QImage(nx, ny, QImage::Format_Grayscale8);
  for (int y = 0; y < ny; ++y)
    for (int x = 0; x < nx; ++x)
      image_.scanLine(ny - 1 - y)[x] =
          static_cast<uchar>(std::clamp(255.0 * std::log1p(mag[static_cast<std::size_t>(y) * nx + x] / floor) / top, 0.0, 255.0));
  flags_.resize(ny);
  for (int y = 0; y < ny; ++y) {
    flags_[y] = raw.flags(y);
    if (flags_[y] & mrwb::kLineCalibration) ++counts_.calibration;
    else if (flags_[y] & mrwb::kLineAcquired) ++counts_.acquired;
    else ++counts_.skipped;
  }
  message_.clear();
  update();
}

void KspaceView::paintEvent(QPaintEvent*) {
  QPainter p(this);
  p.fillRect(rect(), QColor(24, 26, 30));
  p.setPen(QColor(200, 205, 212));
  const QFontMetrics fm(font());
  p.drawText(QRectF(0, 4, width(), fm.height() + 2), Qt::AlignHCenter, tr("k-space, log |k| (5 decades)"));
  if (image_.isNull()) {
    p.drawText(rect(), Qt::AlignCenter | Qt::TextWordWrap, message_);
    return;
  }
  // The image fits between the title and the legend, square pixels, the line marks left of it.
  const int top = fm.height() + 10, bottom = 2 * fm.height() + 12;
  const QRectF room(kStripPx + 12, top, width() - kStripPx - 20, height() - top - bottom);
  const double s = std::min(room.width() / image_.width(), room.height() / image_.height());
  const QRectF target(room.center().x() - 0.5 * s * image_.width(), room.center().y() - 0.5 * s * image_.height(),
                      s * image_.width(), s * image_.height());
  p.drawImage(target, image_);
  const int ny = image_.height();
  for (int y = 0; y < ny; ++y)  // line y is drawn at row ny - 1 - y
    p.fillRect(QRectF(target.left() - kStripPx - 2, target.top() + (ny - 1 - y) * s, kStripPx, std::max(1.0, s)),
               lineStatusColor(flags_[y]));
  const std::pair<std::uint8_t, QString> legend[] = {
      {mrwb::kLineAcquired, tr("acquired %1").arg(counts_.acquired)},
      {mrwb::kLineCalibration, tr("ACS %1").arg(counts_.calibration)},
      {0, tr("skipped %1").arg(counts_.skipped)}};
  double x = target.left();
  const double y = target.bottom() + fm.height() + 4;
  for (const auto& [f, label] : legend) {
    p.fillRect(QRectF(x, y - fm.ascent() + 2, 12, fm.ascent() - 4), lineStatusColor(f));
    p.drawText(QPointF(x + 16, y), label);
    x += 24 + fm.horizontalAdvance(label);
  }
}

}  // namespace mrwb::ui
