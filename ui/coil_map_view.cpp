#include "mrwb_ui/coil_map_view.hpp"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QPainter>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>

#include "mrwb/base/errors.hpp"
#include "mrwb/io/colormap.hpp"
#include "mrwb/phantom/coil_sensitivity.hpp"
#include "mrwb/pipeline/recon_coil_maps.hpp"
#include "mrwb_ui/workbench_style.hpp"

namespace mrwb::ui {

namespace {

QRgb toQRgb(colormap::Rgb8 c) { return qRgb(c.r, c.g, c.b); }
// Magnitude on viridis (perceptually even); phase on a cyclic hue wheel, so -pi and +pi look alike.
QRgb viridis(double t) { return toQRgb(colormap::viridis(t)); }
QRgb phaseColor(double rad) { return toQRgb(colormap::phase_wheel(rad)); }
}  // namespace

struct CoilMapView::Result {
  std::vector<std::complex<float>> sens;
  int ncoils = 0, n = 0;
};

// The tiles in a near-square grid, with a colorbar on the right.
class CoilMapCanvas : public QWidget {
 public:
  explicit CoilMapCanvas(QWidget* parent) : QWidget(parent) { setMinimumSize(240, 200); }
  std::vector<QImage>* tiles = nullptr;
  CoilMapView::Display display = CoilMapView::Display::Magnitude;
  float maxMagnitude = 0;
  QString message;

 protected:
  void paintEvent(QPaintEvent*) override {
    QPainter p(this);
    p.fillRect(rect(), kPlotBackground);
    p.setPen(kPlotText);
    if (!tiles || tiles->empty()) {
      p.drawText(rect(), Qt::AlignCenter | Qt::TextWordWrap, message.isEmpty() ? QObject::tr("No coil maps") : message);
      return;
    }
    const int barW = 70;
    const int n = static_cast<int>(tiles->size());
    const int cols = static_cast<int>(std::ceil(std::sqrt(static_cast<double>(n))));
    const int rows = (n + cols - 1) / cols;
    const int cell = std::max(8, std::min((width() - barW) / cols, height() / rows));
    for (int c = 0; c < n; ++c) {
      const QRect r((c % cols) * cell + 2, (c / cols) * cell + 2, cell - 4, cell - 4);
      p.drawImage(r, (*tiles)[c]);
      p.drawText(r.adjusted(3, 2, 0, 0), Qt::AlignLeft | Qt::AlignTop, QObject::tr("coil %1").arg(c + 1));
    }
    // Colorbar.
    const QRect bar(width() - barW + 8, 16, 14, std::max(40, height() - 40));
    for (int y = 0; y < bar.height(); ++y) {
      const double t = 1.0 - static_cast<double>(y) / (bar.height() - 1);
      p.setPen(display == CoilMapView::Display::Magnitude ? QColor(viridis(t)) : QColor(phaseColor(-M_PI + t * 2 * M_PI)));
      p.drawLine(bar.left(), bar.top() + y, bar.right(), bar.top() + y);
    }
    p.setPen(kPlotText);
    const bool mag = display == CoilMapView::Display::Magnitude;
    p.drawText(QPoint(bar.right() + 4, bar.top() + 8), mag ? QString::number(maxMagnitude, 'g', 2) : QStringLiteral("π"));
    p.drawText(QPoint(bar.right() + 4, bar.bottom()), mag ? QStringLiteral("0") : QStringLiteral("-π"));
    p.drawText(QPoint(bar.left() - 4, bar.bottom() + 16), mag ? QObject::tr("|s| [a.u.]") : QObject::tr("phase [rad]"));
  }
};

CoilMapView::CoilMapView(QWidget* parent) : QWidget(parent) {
  worker_ = new BackgroundJob(this);
  connect(worker_, &BackgroundJob::finished, this, &CoilMapView::onFinished);
  auto* layout = new QVBoxLayout(this);
  auto* bar = new QHBoxLayout;
  displayBox_ = new QComboBox(this);
  displayBox_->addItem(tr("Magnitude"));
  displayBox_->addItem(tr("Phase"));
  status_ = new QLabel(this);
  sourceBox_ = new QComboBox(this);
  sourceBox_->setObjectName(QStringLiteral("coilMapSource"));
  sourceBox_->addItem(tr("True (simulator)"));
  sourceBox_->addItem(tr("True ÷ root sum of squares"));
  sourceBox_->addItem(tr("ESPIRiT (from the ACS lines)"));
  sourceBox_->setToolTip(tr("The simulator's coil sensitivities, the same normalised as SENSE maps are, or ESPIRiT's "
                            "estimate from the last run's calibration lines (Uecker et al. 2014)"));
  bar->addWidget(new QLabel(tr("Maps:"), this));
  bar->addWidget(sourceBox_);
  bar->addWidget(new QLabel(tr("Show:"), this));
  bar->addWidget(displayBox_);
  bar->addWidget(status_, 1);
  layout->addLayout(bar);
  canvas_ = new CoilMapCanvas(this);
  canvas_->tiles = &tiles_;
  layout->addWidget(canvas_, 1);
  connect(displayBox_, &QComboBox::currentIndexChanged, this,
          [this](int i) { setDisplay(i == 0 ? Display::Magnitude : Display::Phase); });
  connect(sourceBox_, &QComboBox::currentIndexChanged, this, [this](int i) { setSource(static_cast<Source>(i)); });
}

CoilMapView::~CoilMapView() = default;  // worker_ (a child) waits for a running computation (short)

void CoilMapView::setScenario(const mrwb::Scenario& scenario) {
  scenario_ = scenario;
  if (worker_->busy()) {
    restart_ = true;  // the running computation is stale; start again when it ends
    return;
  }
  start();
}

void CoilMapView::setSource(Source source) {
  source_ = source;
  if (sourceBox_->currentIndex() != static_cast<int>(source)) sourceBox_->setCurrentIndex(static_cast<int>(source));
  setScenario(scenario_);
}

void CoilMapView::setRawData(const mrwb::RawData& raw) {
  raw_ = std::make_shared<const RawData>(raw);
  if (source_ == Source::Espirit) setScenario(scenario_);
}

void CoilMapView::start() {
  restart_ = false;
  const int ncoils = scenario_.coils.count;
  const int n = std::min(scenario_.sequence.matrix, maxDisplayMatrix);
  const double fov = scenario_.sequence.fov_m;
  const bool loops = scenario_.coils.arrangement == "loops" && ncoils > 1;
  const Source source = source_;
  auto result = std::make_shared<Result>();
  pending_ = result;
  if (source == Source::Espirit && !raw_) {  // nothing to estimate from yet
    sens_.clear();
    ncoils_ = 0;
    error_ = tr("ESPIRiT: run a simulation with calibration (ACS) lines first");
    status_->setText(error_);
    canvas_->message = error_;
    rebuildTiles();
    return;
  }
  status_->setText(source == Source::Espirit ? tr("estimating ESPIRiT maps…") : tr("computing %1 coil maps…").arg(ncoils));
  worker_->start(
      [result, ncoils, n, fov, loops, source, raw = raw_](const ProgressFn&, const CancelToken&) {
        if (source == Source::Espirit) {
          Scenario s;
          s.recon.maps = "espirit";
          result->sens = recon_coil_maps(s, *raw);  // a volume: its central plane; a trajectory: the cg's n x n grid
          result->ncoils = raw->ncoils;
          result->n = raw->cartesian() ? raw->nx : static_cast<int>(std::lround(std::sqrt(result->sens.size() / raw->ncoils)));
          if (raw->cartesian() && raw->nx != raw->ny) throw InputError("ESPIRiT view: square images only");
          return;
        }
        result->sens = loops ? loop_coil_sensitivities(ncoils, n, n, fov) : uniform_coil_sensitivities(ncoils, n, n);
        if (source == Source::TrueNormalised) {
          const std::size_t plane = static_cast<std::size_t>(n) * n;
          for (std::size_t i = 0; i < plane; ++i) {
            double ss = 0;
            for (int c = 0; c < ncoils; ++c) ss += std::norm(result->sens[c * plane + i]);
            for (int c = 0; c < ncoils && ss > 0; ++c) result->sens[c * plane + i] /= static_cast<float>(std::sqrt(ss));
          }
        }
        result->ncoils = ncoils;
        result->n = n;
      },
      QStringLiteral("mrwb-coil-maps"));
}

void CoilMapView::onFinished() {
  if (restart_) {
    start();
    return;
  }
  const Result& r = *pending_;
  const bool ok = worker_->outcome() == BackgroundJob::Outcome::Done;
  error_ = ok ? QString() : worker_->error();
  sens_ = r.sens;
  ncoils_ = ok ? r.ncoils : 0;
  n_ = r.n;
  maxMagnitude_ = 0;
  for (const auto& v : sens_) maxMagnitude_ = std::max(maxMagnitude_, std::abs(v));
  const QString what = source_ == Source::Espirit ? tr("ESPIRiT maps from the last run's ACS lines")
                                                  : QString::fromStdString(scenario_.coils.arrangement);
  status_->setText(error_.isEmpty() ? tr("%1 coils (%2), %3 x %3 px").arg(ncoils_).arg(what).arg(n_) : error_);
  rebuildTiles();
  emit mapsReady();
}

void CoilMapView::setDisplay(Display display) {
  display_ = display;
  if (displayBox_->currentIndex() != (display == Display::Magnitude ? 0 : 1))
    displayBox_->setCurrentIndex(display == Display::Magnitude ? 0 : 1);
  rebuildTiles();
}

void CoilMapView::rebuildTiles() {
  tiles_.clear();
  const float scale = maxMagnitude_ > 0 ? 1.0f / maxMagnitude_ : 0.0f;
  for (int c = 0; c < ncoils_; ++c) {
    QImage img(n_, n_, QImage::Format_RGB32);
    for (int y = 0; y < n_; ++y) {
      // Row 0 is y = -FOV/2: draw it at the bottom, as the image views do.
      auto* line = reinterpret_cast<QRgb*>(img.scanLine(n_ - 1 - y));
      for (int x = 0; x < n_; ++x) {
        const std::complex<float> s = sens_[(static_cast<std::size_t>(c) * n_ + y) * n_ + x];
        line[x] = display_ == Display::Magnitude ? viridis(std::abs(s) * scale) : phaseColor(std::arg(s));
      }
    }
    tiles_.push_back(std::move(img));
  }
  canvas_->display = display_;
  canvas_->maxMagnitude = maxMagnitude_;
  canvas_->message = error_;
  canvas_->update();
}

QImage CoilMapView::tile(int coil) const {
  return coil >= 0 && coil < static_cast<int>(tiles_.size()) ? tiles_[coil] : QImage();
}

}  // namespace mrwb::ui
