#include "mrwb_ui/segment_editor.hpp"

#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <algorithm>
#include <exception>

#include "mrwb/phantom/vessel_generators.hpp"

namespace mrwb::ui {
namespace {

bool isIdentity(const VesselSegmentEdit& e) { return e.radius_scale == 1 && e.stenosis_degree_percent == 0 && !e.remove; }

}  // namespace

SegmentEditor::SegmentEditor(QWidget* parent) : QWidget(parent) {
  auto* form = new QFormLayout(this);
  form->setLabelAlignment(Qt::AlignRight | Qt::AlignVCenter);
  info_ = new QLabel(this);
  info_->setWordWrap(true);
  form->addRow(info_);
  scale_ = new QDoubleSpinBox(this);
  scale_->setObjectName(QStringLiteral("segmentRadiusScale"));
  scale_->setRange(0.1, 2.0);  // core allows (0, 2]; below 0.1 the lumen is under a cell anyway
  scale_->setDecimals(2);
  scale_->setSingleStep(0.05);
  scale_->setPrefix(QStringLiteral("× "));
  scale_->setKeyboardTracking(false);
  scale_->setToolTip(tr("Lumen radius of this segment and everything downstream, times this factor (0.10–2.00)"));
  form->addRow(tr("Radius scale"), scale_);
  stenosis_ = new QDoubleSpinBox(this);
  stenosis_->setObjectName(QStringLiteral("segmentStenosis"));
  stenosis_->setRange(0, 95);
  stenosis_->setDecimals(0);
  stenosis_->setSingleStep(5);
  stenosis_->setSuffix(QStringLiteral(" %"));
  stenosis_->setKeyboardTracking(false);
  stenosis_->setToolTip(tr("Diameter reduction at a cosine-shaped narrowing over the middle half of the segment (0–95 %)"));
  form->addRow(tr("Stenosis"), stenosis_);
  auto* buttons = new QHBoxLayout;
  delete_ = new QPushButton(tr("Delete branch"), this);
  delete_->setObjectName(QStringLiteral("segmentDelete"));
  delete_->setToolTip(tr("Remove this segment and everything downstream of it"));
  reset_ = new QPushButton(tr("Reset segment"), this);
  reset_->setObjectName(QStringLiteral("segmentReset"));
  buttons->addWidget(delete_);
  buttons->addWidget(reset_);
  form->addRow(buttons);

  connect(scale_, &QDoubleSpinBox::valueChanged, this,
          [this](double v) { editSegment(QStringLiteral("radius_scale"), [v](VesselSegmentEdit& e) { e.radius_scale = v; }); });
  connect(stenosis_, &QDoubleSpinBox::valueChanged, this, [this](double v) {
    editSegment(QStringLiteral("stenosis_degree_percent"), [v](VesselSegmentEdit& e) { e.stenosis_degree_percent = v; });
  });
  connect(reset_, &QPushButton::clicked, this, [this] {
    editSegment(QStringLiteral("reset"), [](VesselSegmentEdit& e) { e = VesselSegmentEdit{e.segment}; });
  });
  connect(delete_, &QPushButton::clicked, this, &SegmentEditor::removeBranch);
  refresh();
}

void SegmentEditor::setScenario(const mrwb::Scenario& s) {
  scenario_ = s;
  if (s.phantom.preset != "vessel_tree") segment_ = -1;
  refresh();
}

void SegmentEditor::setSegment(int generatedSegment, const QString& info) {
  segment_ = scenario_.phantom.preset == "vessel_tree" ? generatedSegment : -1;
  info_->setText(info);
  refresh();
}

void SegmentEditor::refresh() {
  filling_ = true;
  const bool on = segment_ >= 0;
  VesselSegmentEdit e{segment_};
  for (const auto& x : scenario_.phantom.tree.segment_edits)
    if (x.segment == segment_) e = x;
  scale_->setValue(e.radius_scale);
  stenosis_->setValue(e.stenosis_degree_percent);
  for (QWidget* w : {static_cast<QWidget*>(scale_), static_cast<QWidget*>(stenosis_), static_cast<QWidget*>(reset_)})
    w->setEnabled(on);
  delete_->setEnabled(on && segment_ != 0);  // core keeps the root
  if (!on)
    info_->setText(scenario_.phantom.preset == "vessel_tree" ? tr("Click a vessel in the 3-D view to edit it")
                                                              : tr("Segments are editable in generated vessel trees"));
  filling_ = false;
}

void SegmentEditor::editSegment(const QString& what, const std::function<void(VesselSegmentEdit&)>& change) {
  if (filling_ || segment_ < 0) return;
  Scenario s = scenario_;
  auto& edits = s.phantom.tree.segment_edits;
  auto it = std::find_if(edits.begin(), edits.end(), [&](const VesselSegmentEdit& e) { return e.segment == segment_; });
  if (it == edits.end()) it = edits.insert(edits.end(), VesselSegmentEdit{segment_});
  change(*it);
  if (isIdentity(*it)) edits.erase(it);
  scenario_ = s;
  emit scenarioEdited(s, QStringLiteral("phantom.tree.segment_edits[%1].%2").arg(segment_).arg(what));
}

void SegmentEditor::removeBranch() {
  if (segment_ <= 0) return;
  Scenario s = scenario_;
  // Edits inside the removed branch go with it (core refuses an edit in a removed branch). The branch
  // is read from the generated tree, without edits (core's generator).
  VesselTreeSpec plain = s.phantom.tree;
  plain.segment_edits.clear();
  std::vector<int> branch{segment_};
  try {
    const VesselTree t = generate_vessel_tree(plain);
    for (std::size_t i = 0; i < branch.size(); ++i)
      for (int c : t.segments.at(branch[i]).children) branch.push_back(c);
  } catch (const std::exception&) {
    return;  // the tree itself is invalid: the scenario panel shows why
  }
  auto& edits = s.phantom.tree.segment_edits;
  std::erase_if(edits, [&](const VesselSegmentEdit& e) { return std::find(branch.begin(), branch.end(), e.segment) != branch.end(); });
  edits.push_back(VesselSegmentEdit{segment_, 1, 0, true});
  const int removed = segment_;
  scenario_ = s;
  segment_ = -1;
  refresh();
  emit scenarioEdited(s, QStringLiteral("phantom.tree.segment_edits[%1].remove").arg(removed));
}

}  // namespace mrwb::ui
