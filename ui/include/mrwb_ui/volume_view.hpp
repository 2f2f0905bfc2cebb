#pragma once
// The Volume panel for multi-slice and 3-D scenarios (TOF): the reconstruction's maximum intensity
// projection along z, the truth's, or one plane chosen with a slider, in one image view; the volume's
// metrics over every voxel beside it.
#include <QWidget>
#include <optional>

#include "mrwb/base/image_volume.hpp"
#include "mrwb/metrics/metrics.hpp"

class QComboBox;
class QLabel;
class QSlider;

namespace mrwb::ui {

class ImageView;

class VolumeView : public QWidget {
  Q_OBJECT
 public:
  enum class Mode { ReconMip = 0, TruthMip = 1, ReconSlice = 2 };
  explicit VolumeView(QWidget* parent = nullptr);
  void setVolumes(const mrwb::ImageVolume& recon, const mrwb::ImageVolume& truth, const mrwb::Metrics& metrics);
  void clear();
  void setMode(Mode m);
  void setSlice(int z);
  bool hasVolume() const { return recon_.nz > 0; }
  int sliceCount() const { return recon_.nz; }
  ImageView* view() const { return view_; }
  QString metricsText() const;

 private:
  void show();

  mrwb::ImageVolume recon_, truth_;
  mrwb::Metrics metrics_;
  QComboBox* mode_ = nullptr;
  QSlider* slice_ = nullptr;
  QLabel* info_ = nullptr;
  ImageView* view_ = nullptr;
};

}  // namespace mrwb::ui
