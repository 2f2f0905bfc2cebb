#include "mrwb_ui/scenario_document.hpp"

#include <QFileInfo>
#include <QUndoCommand>
#include <QUndoStack>

namespace mrwb::ui {

// One parameter edit: the whole scenario before and after (a Scenario is small), so undo is exact.
class ScenarioEditCommand : public QUndoCommand {
 public:
  ScenarioEditCommand(ScenarioDocument* doc, mrwb::Scenario before, mrwb::Scenario after, QString field)
      : doc_(doc), before_(std::move(before)), after_(std::move(after)), field_(std::move(field)) {
    setText(QObject::tr("edit %1").arg(field_));
  }
  void undo() override { doc_->apply(before_); }
  void redo() override { doc_->apply(after_); }
  // All edits share one id; mergeWith decides by field, so typing in one box is one undo step.
  int id() const override { return 1; }
  bool mergeWith(const QUndoCommand* other) override {
    const auto* o = static_cast<const ScenarioEditCommand*>(other);
    if (o->field_ != field_) return false;
    after_ = o->after_;
    return true;
  }

 private:
  ScenarioDocument* doc_;
  mrwb::Scenario before_;
  mrwb::Scenario after_;
  QString field_;
};

ScenarioDocument::ScenarioDocument(QObject* parent) : QObject(parent), undo_(new QUndoStack(this)) {
  connect(undo_, &QUndoStack::cleanChanged, this, [this](bool) { emitDirtyIfChanged(); });
}

ScenarioDocument::~ScenarioDocument() { undo_->disconnect(this); }

bool ScenarioDocument::isDirty() const { return forcedDirty_ || !undo_->isClean(); }

QString ScenarioDocument::jsonText(const mrwb::Scenario& s) {
  return QString::fromStdString(mrwb::scenario_to_json_text(s));
}

void ScenarioDocument::edit(const mrwb::Scenario& edited, const QString& field) {
  if (jsonText(edited) == jsonText(scenario_)) return;
  undo_->push(new ScenarioEditCommand(this, scenario_, edited, field));
}

void ScenarioDocument::reset(const mrwb::Scenario& s, const QString& path) {
  undo_->clear();  // clear() also makes the stack clean
  forcedDirty_ = false;
  setPath(path);
  apply(s);
  emitDirtyIfChanged();
}

void ScenarioDocument::load(const QString& path) {
  const mrwb::Scenario s = mrwb::load_scenario(path.toStdString());
  reset(s, QFileInfo(path).absoluteFilePath());
}

void ScenarioDocument::save(const QString& path) {
  mrwb::save_scenario(scenario_, path.toStdString());
  setPath(QFileInfo(path).absoluteFilePath());
  forcedDirty_ = false;
  undo_->setClean();
  emitDirtyIfChanged();
}

void ScenarioDocument::markDirty() {
  forcedDirty_ = true;
  emitDirtyIfChanged();
}

void ScenarioDocument::apply(const mrwb::Scenario& s) {
  scenario_ = s;
  emit scenarioChanged(scenario_);
}

void ScenarioDocument::setPath(const QString& path) {
  if (path == path_) return;
  path_ = path;
  emit pathChanged(path_);
}

void ScenarioDocument::emitDirtyIfChanged() {
  const bool dirty = isDirty();
  if (dirty == lastDirty_) return;
  lastDirty_ = dirty;
  emit dirtyChanged(dirty);
}

}  // namespace mrwb::ui
