#include "mrwb_ui/sweep_view.hpp"

#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFileDialog>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QImage>
#include <QLabel>
#include <QPainter>
#include <QPainterPath>
#include <QProgressBar>
#include <QPushButton>
#include <QSpinBox>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>
#include <fstream>

#include "mrwb/base/atomic_file.hpp"
#include "mrwb_ui/background_job.hpp"

namespace mrwb::ui {

// The quantity against the swept field, drawn with QPainter: axes with their ranges, one point per run.
class SweepPlot : public QWidget {
 public:
  explicit SweepPlot(QWidget* parent = nullptr) : QWidget(parent) { setMinimumHeight(180); }
  void set(std::vector<double> x, std::vector<double> y, QString xLabel, QString yLabel) {
    x_ = std::move(x);
    y_ = std::move(y);
    xLabel_ = std::move(xLabel);
    yLabel_ = std::move(yLabel);
    update();
  }
  int points() const { return static_cast<int>(x_.size()); }

 protected:
  void paintEvent(QPaintEvent*) override {
    QPainter p(this);
    p.setRenderHint(QPainter::Antialiasing);
    p.fillRect(rect(), palette().base());
    const QFontMetrics fm(font());
    const int left = fm.horizontalAdvance(QStringLiteral("-00000.0")) + 10, bottom = 2 * fm.height() + 8;
    const QRectF area(left, 10, width() - left - 16, height() - bottom - 10);
    p.setPen(palette().text().color());
    p.drawRect(area);
    p.drawText(QRectF(0, height() - fm.height() - 2, width(), fm.height()), Qt::AlignCenter, xLabel_);
    if (x_.empty()) return;
    double xl = *std::min_element(x_.begin(), x_.end()), xh = *std::max_element(x_.begin(), x_.end());
    double yl = *std::min_element(y_.begin(), y_.end()), yh = *std::max_element(y_.begin(), y_.end());
    if (!(xh > xl)) xh = xl + 1;
    if (!(yh > yl)) { yl -= 0.5 * std::max(1e-12, std::abs(yl)); yh = 2 * yh - yl; }
    const double pad = 0.06 * (yh - yl);
    yl -= pad;
    yh += pad;
    auto at = [&](double x, double y) {
      return QPointF(area.left() + (x - xl) / (xh - xl) * area.width(), area.bottom() - (y - yl) / (yh - yl) * area.height());
    };
    p.drawText(QRectF(area.left() - 4, area.bottom() + 2, 80, fm.height()), Qt::AlignLeft, QString::number(xl, 'g', 4));
    p.drawText(QRectF(area.right() - 76, area.bottom() + 2, 80, fm.height()), Qt::AlignRight, QString::number(xh, 'g', 4));
    p.drawText(QRectF(0, area.top(), left - 4, fm.height()), Qt::AlignRight, QString::number(yh, 'g', 4));
    p.drawText(QRectF(0, area.bottom() - fm.height(), left - 4, fm.height()), Qt::AlignRight, QString::number(yl, 'g', 4));
    p.drawText(QRectF(area.left() + 6, area.top() + 2, area.width(), fm.height()), Qt::AlignLeft, yLabel_);
    QPainterPath path;
    for (std::size_t i = 0; i < x_.size(); ++i) i ? path.lineTo(at(x_[i], y_[i])) : path.moveTo(at(x_[i], y_[i]));
    p.setPen(QPen(QColor(0x4f, 0x9c, 0xf5), 2));
    p.drawPath(path);
    p.setBrush(QColor(0x4f, 0x9c, 0xf5));
    for (std::size_t i = 0; i < x_.size(); ++i) p.drawEllipse(at(x_[i], y_[i]), 4, 4);
  }

 private:
  std::vector<double> x_, y_;
  QString xLabel_, yLabel_;
};

namespace {

// Magnitude as 8-bit grey, 0 .. max, +y up as in the image views.
QImage thumbnail(const mrwb::Image2D& img, double hi) {
  const std::vector<float> m = img.magnitude();
  QImage q(img.nx, img.ny, QImage::Format_Grayscale8);
  for (int y = 0; y < img.ny; ++y)
    for (int x = 0; x < img.nx; ++x)
      q.scanLine(img.ny - 1 - y)[x] =
          static_cast<uchar>(std::clamp(255.0 * m[static_cast<std::size_t>(y) * img.nx + x] / hi, 0.0, 255.0));
  return q;
}

}  // namespace

SweepView::SweepView(QWidget* parent) : QWidget(parent), job_(new BackgroundJob(this)) {
  auto* layout = new QVBoxLayout(this);
  auto* form = new QFormLayout;
  field_ = new QComboBox(this);
  field_->setObjectName(QStringLiteral("sweepField"));
  for (const auto& f : mrwb::sweep_fields())
    field_->addItem(QString::fromStdString(f.label + (f.unit.empty() ? "" : " [" + f.unit + "]")), QString::fromStdString(f.key));
  form->addRow(tr("Field"), field_);
  auto* range = new QHBoxLayout;
  from_ = new QDoubleSpinBox(this);
  to_ = new QDoubleSpinBox(this);
  for (QDoubleSpinBox* b : {from_, to_}) {
    b->setRange(-1e6, 1e6);
    b->setDecimals(6);  // CG λ steps of 1e-6
    range->addWidget(b);
  }
  from_->setValue(10);
  to_->setValue(90);
  points_ = new QSpinBox(this);
  points_->setRange(2, mrwb::k_max_sweep_points);
  points_->setValue(5);
  range->addWidget(new QLabel(tr("points"), this));
  range->addWidget(points_);
  form->addRow(tr("From / to"), range);
  auto* region = new QHBoxLayout;
  for (auto*& r : region_) {
    r = new QSpinBox(this);
    r->setRange(0, 4096);
    region->addWidget(r);
  }
  region_[0]->setToolTip(tr("Region x0 (pixels; all 0: the whole image)"));
  form->addRow(tr("Region x0 y0 x1 y1"), region);
  plotted_ = new QComboBox(this);
  plotted_->addItems({tr("PSNR [dB]"), tr("SSIM"), tr("Mean |recon| in the region")});
  form->addRow(tr("Plot"), plotted_);
  layout->addLayout(form);
  auto* buttons = new QHBoxLayout;
  run_ = new QPushButton(tr("Run sweep"), this);
  cancel_ = new QPushButton(tr("Cancel"), this);
  auto* png = new QPushButton(tr("Save PNG…"), this);
  auto* csv = new QPushButton(tr("Save CSV…"), this);
  for (QPushButton* b : {run_, cancel_, png, csv}) buttons->addWidget(b);
  layout->addLayout(buttons);
  progress_ = new QProgressBar(this);
  layout->addWidget(progress_);
  status_ = new QLabel(this);
  status_->setWordWrap(true);
  layout->addWidget(status_);
  results_ = new QWidget(this);
  auto* rl = new QVBoxLayout(results_);
  strip_ = new QHBoxLayout;
  rl->addLayout(strip_);
  plot_ = new SweepPlot(results_);
  rl->addWidget(plot_);
  layout->addWidget(results_, 1);

  job_->driveProgressBar(progress_);
  job_->attachControls(run_, cancel_);
  connect(run_, &QPushButton::clicked, this, [this] { start(); });
  connect(job_, &BackgroundJob::finished, this, &SweepView::onFinished);
  connect(plotted_, &QComboBox::currentIndexChanged, this, [this] { showResult(); });
  connect(png, &QPushButton::clicked, this, [this] {
    const QString path = QFileDialog::getSaveFileName(this, tr("Save the sweep as PNG"), QStringLiteral("sweep.png"), tr("PNG (*.png)"));
    if (!path.isEmpty() && !exportPng(path)) status_->setText(error_);
  });
  connect(csv, &QPushButton::clicked, this, [this] {
    const QString path = QFileDialog::getSaveFileName(this, tr("Save the sweep as CSV"), QStringLiteral("sweep.csv"), tr("CSV (*.csv)"));
    if (!path.isEmpty() && !exportCsv(path)) status_->setText(error_);
  });
}

SweepView::~SweepView() = default;

void SweepView::setScenario(const mrwb::Scenario& s) { scenario_ = s; }

bool SweepView::setField(const QString& key) {
  const int i = field_->findData(key);
  if (i < 0) return false;
  field_->setCurrentIndex(i);
  return true;
}

void SweepView::setRange(double from, double to, int points) {
  from_->setValue(from);
  to_->setValue(to);
  points_->setValue(points);
}

void SweepView::setRegion(int x0, int y0, int x1, int y1) {
  const int v[4] = {x0, y0, x1, y1};
  for (int i = 0; i < 4; ++i) region_[i]->setValue(v[i]);
}

void SweepView::setPlotted(int quantity) { plotted_->setCurrentIndex(quantity); }
bool SweepView::busy() const { return job_->busy(); }
void SweepView::cancel() { job_->cancel(); }
int SweepView::imageCount() const { return strip_->count(); }
int SweepView::plottedPointCount() const { return plot_->points(); }

bool SweepView::start() {
  if (job_->busy()) return false;
  const auto& f = mrwb::sweep_fields().at(static_cast<std::size_t>(field_->currentIndex()));
  std::vector<double> values;
  try {
    values = mrwb::sweep_values(from_->value() * f.to_file, to_->value() * f.to_file, points_->value());
  } catch (const std::exception& e) {
    error_ = QString::fromUtf8(e.what());
    status_->setText(error_);
    return false;
  }
  const mrwb::SweepRegion region{region_[0]->value(), region_[1]->value(), region_[2]->value(), region_[3]->value()};
  auto out = std::make_shared<mrwb::SweepResult>();
  pending_ = out;
  const mrwb::Scenario s = scenario_;
  const std::string key = f.key;
  status_->setText(tr("Sweeping %1 over %2 points…").arg(field_->currentText()).arg(values.size()));
  return job_->start(
      [s, key, values, region, out](const mrwb::ProgressFn& progress, const mrwb::CancelToken& cancel) {
        *out = mrwb::run_sweep(s, key, values, region, progress, cancel);
      },
      QStringLiteral("mrwb-sweep"));
}

void SweepView::onFinished() {
  if (job_->outcome() != BackgroundJob::Outcome::Done) {
    error_ = job_->outcome() == BackgroundJob::Outcome::Cancelled ? tr("Sweep cancelled") : job_->error();
    status_->setText(error_);
    emit sweepFinished(false);
    return;
  }
  result_ = *pending_;
  error_.clear();
  showResult();
  status_->setText(tr("%1 points of %2").arg(result_.points.size()).arg(QString::fromStdString(result_.field)));
  emit sweepFinished(true);
}

void SweepView::showResult() {
  while (QLayoutItem* item = strip_->takeAt(0)) {
    delete item->widget();
    delete item;
  }
  if (result_.points.empty()) return;
  const auto it = std::find_if(mrwb::sweep_fields().begin(), mrwb::sweep_fields().end(),
                               [&](const mrwb::SweepField& f) { return f.key == result_.field; });
  const double shown = it != mrwb::sweep_fields().end() ? 1.0 / it->to_file : 1.0;
  // One grey scale for the strip, so brightness compares across the points.
  double hi = 1e-20;
  for (const auto& p : result_.points)
    for (float v : p.recon.magnitude()) hi = std::max(hi, static_cast<double>(v));
  std::vector<double> x, y;
  for (const auto& p : result_.points) {
    auto* cell = new QLabel;
    cell->setPixmap(QPixmap::fromImage(thumbnail(p.recon, hi).scaled(96, 96, Qt::KeepAspectRatio)));
    cell->setToolTip(QStringLiteral("%1 = %2").arg(QString::fromStdString(result_.field)).arg(p.value * shown, 0, 'g', 4));
    strip_->addWidget(cell);
    x.push_back(p.value * shown);
    const int q = plotted_->currentIndex();
    y.push_back(q == 0 ? p.metrics.psnr_db : q == 1 ? p.metrics.ssim : p.region_mean);
  }
  plot_->set(std::move(x), std::move(y), field_->itemText(std::max(0, static_cast<int>(it - mrwb::sweep_fields().begin()))),
             plotted_->currentText());
}

// Writes through a temporary file renamed onto `path` (nothing half-written); false with error_ set.
bool SweepView::writeAtomically(const QString& path, const std::function<bool(const std::string& temp)>& write) {
  if (result_.points.empty()) {
    error_ = tr("No sweep to export yet");
    return false;
  }
  try {
    mrwb::require_output_folder(path.toStdString());
    mrwb::AtomicOutput out(path.toStdString());
    if (!write(out.temp_path())) throw std::runtime_error(path.toStdString() + ": cannot write");
    out.commit();
    return true;
  } catch (const std::exception& e) {
    error_ = QString::fromUtf8(e.what());
    return false;
  }
}

bool SweepView::exportCsv(const QString& path) {
  return writeAtomically(path, [this](const std::string& temp) {
    std::ofstream f(temp);
    f << mrwb::sweep_csv(result_);
    f.close();
    return static_cast<bool>(f);
  });
}

bool SweepView::exportPng(const QString& path) {
  return writeAtomically(path, [this](const std::string& temp) {
    return results_->grab().save(QString::fromStdString(temp), "PNG");
  });
}

}  // namespace mrwb::ui
