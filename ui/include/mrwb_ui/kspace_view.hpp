#pragma once
// The K-space panel: the last run's raw data as log magnitude (root sum of squares over the coils, line 0
// at the bottom as the image views), every phase-encode line marked at the left by what it is —
// acquired, calibration (ACS) or skipped (zero) — with the counts in a legend. Non-Cartesian data point to
// the Trajectory panel.
#include <QImage>
#include <QWidget>

#include "mrwb/base/raw_data.hpp"

namespace mrwb::ui {

class KspaceView : public QWidget {
  Q_OBJECT
 public:
  explicit KspaceView(QWidget* parent = nullptr);
  void setRawData(const mrwb::RawData& raw);
  void clear();

  struct LineCounts {
    int acquired = 0, calibration = 0, skipped = 0;
  };
  bool hasData() const { return !image_.isNull(); }
  LineCounts lineCounts() const { return counts_; }
  // The log-magnitude image as drawn (nx x ny, line 0 in the bottom row).
  const QImage& image() const { return image_; }
  QString message() const { return message_; }

 protected:
  void paintEvent(QPaintEvent* e) override;

 private:
  QImage image_;
  std::vector<std::uint8_t> flags_;
  LineCounts counts_;
  QString message_;
};

}  // namespace mrwb::ui
