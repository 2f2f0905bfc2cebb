#pragma once
// The editor of the vessel segment picked in the 3-D tree view: radius scale of the branch, a local
// stenosis, delete the branch, reset. Every change is a scenario edit (phantom.tree.segment_edits, which
// core applies after generating the tree) handed back with its key, so it goes through the undo stack.
#include <QWidget>
#include <functional>

#include "mrwb/scenario/scenario.hpp"

class QDoubleSpinBox;
class QLabel;
class QPushButton;

namespace mrwb::ui {

class SegmentEditor : public QWidget {
  Q_OBJECT
 public:
  explicit SegmentEditor(QWidget* parent = nullptr);

  // The scenario being edited (shown values follow its segment_edits).
  void setScenario(const mrwb::Scenario& s);
  // The segment to edit, by its index in the generated tree (-1: none); `info` describes it.
  void setSegment(int generatedSegment, const QString& info = {});
  int segment() const { return segment_; }

  QDoubleSpinBox* radiusScaleBox() const { return scale_; }
  QDoubleSpinBox* stenosisBox() const { return stenosis_; }
  QPushButton* deleteButton() const { return delete_; }
  QPushButton* resetButton() const { return reset_; }

 signals:
  void scenarioEdited(const mrwb::Scenario& s, const QString& field);

 private:
  // Applies `change` to this segment's edit (created when missing, dropped when it is back to identity).
  void editSegment(const QString& what, const std::function<void(mrwb::VesselSegmentEdit&)>& change);
  void removeBranch();
  void refresh();

  mrwb::Scenario scenario_;
  int segment_ = -1;
  bool filling_ = false;
  QLabel* info_;
  QDoubleSpinBox* scale_;
  QDoubleSpinBox* stenosis_;
  QPushButton* delete_;
  QPushButton* reset_;
};

}  // namespace mrwb::ui
