#include "mrwb_ui/volume_view.hpp"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QSlider>
#include <QVBoxLayout>
#include <algorithm>

#include "mrwb_ui/image_view.hpp"

namespace mrwb::ui {

VolumeView::VolumeView(QWidget* parent) : QWidget(parent) {
  auto* layout = new QVBoxLayout(this);
  auto* row = new QHBoxLayout;
  mode_ = new QComboBox(this);
  mode_->addItems({tr("MIP of the reconstruction"), tr("MIP of the truth"), tr("Slice of the reconstruction")});
  row->addWidget(mode_, 1);
  slice_ = new QSlider(Qt::Horizontal, this);
  slice_->setToolTip(tr("The plane shown in Slice mode (z)"));
  row->addWidget(slice_, 1);
  layout->addLayout(row);
  info_ = new QLabel(this);
  info_->setWordWrap(true);
  layout->addWidget(info_);
  view_ = new ImageView;
  view_->setObjectName(QStringLiteral("volumeView"));
  view_->setMinimumHeight(260);
  layout->addWidget(view_, 1);
  connect(mode_, &QComboBox::currentIndexChanged, this, [this] { show(); });
  connect(slice_, &QSlider::valueChanged, this, [this] { show(); });
  clear();
}

void VolumeView::clear() {
  recon_ = {};
  truth_ = {};
  slice_->setRange(0, 0);
  info_->setText(tr("Run a multi-slice or 3-D scenario (tof_3d, tof_multislice) to see its volume"));
  view_->clearImage(tr("No volume yet"));
}

void VolumeView::setVolumes(const mrwb::ImageVolume& recon, const mrwb::ImageVolume& truth, const mrwb::Metrics& metrics) {
  recon_ = recon;
  truth_ = truth;
  metrics_ = metrics;
  slice_->setRange(0, std::max(0, recon.nz - 1));
  slice_->setValue(recon.nz / 2);
  info_->setText(metricsText());
  show();
}

void VolumeView::setMode(Mode m) { mode_->setCurrentIndex(static_cast<int>(m)); }
void VolumeView::setSlice(int z) { slice_->setValue(z); }

QString VolumeView::metricsText() const {
  if (!hasVolume()) return {};
  return tr("%1 x %2 x %3 volume against its truth, every voxel: PSNR %4 dB, error %5 %, NRMSE %6, SSIM %7 (%8)")
      .arg(recon_.nx)
      .arg(recon_.ny)
      .arg(recon_.nz)
      .arg(metrics_.psnr_db, 0, 'f', 2)
      .arg(metrics_.percent_error, 0, 'f', 2)
      .arg(metrics_.nrmse, 0, 'f', 4)
      .arg(metrics_.ssim, 0, 'f', 4)
      .arg(recon_.nz >= 7 ? tr("7x7x7 windows") : tr("7x7 windows per plane"));
}

void VolumeView::show() {
  if (!hasVolume()) return;
  const auto mode = static_cast<Mode>(mode_->currentIndex());
  slice_->setEnabled(mode == Mode::ReconSlice);
  // One grey scale for both projections, so recon and truth compare by brightness.
  const std::vector<float> rm = recon_.mip_z(), tm = truth_.mip_z();
  const double hi = std::max({1e-20f, *std::max_element(rm.begin(), rm.end()), *std::max_element(tm.begin(), tm.end())});
  if (mode == Mode::ReconSlice) {
    const int z = slice_->value();
    view_->setImage(recon_.slice(z).magnitude(), recon_.nx, recon_.ny, false,
                    tr("Reconstruction, plane %1 of %2").arg(z + 1).arg(recon_.nz), std::make_pair(0.0, hi));
  } else {
    const bool truth = mode == Mode::TruthMip;
    view_->setImage(truth ? tm : rm, recon_.nx, recon_.ny, false,
                    truth ? tr("Truth, MIP along z") : tr("Reconstruction, MIP along z"), std::make_pair(0.0, hi));
  }
}

}  // namespace mrwb::ui
