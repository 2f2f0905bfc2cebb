#pragma once
// The scenario editor: one form row per main Scenario parameter. It edits a copy of the scenario and
// hands every change back (scenarioEdited); the window owns the scenario and asks core to validate.
#include <QWidget>

#include "mrwb/scenario.hpp"

class QComboBox;
class QDoubleSpinBox;
class QFormLayout;
class QLabel;
class QLineEdit;
class QSpinBox;

namespace mrwb::ui {

class ScenarioPanel : public QWidget {
  Q_OBJECT
 public:
  explicit ScenarioPanel(QWidget* parent = nullptr);

  // Shows `s` in the form without emitting scenarioEdited.
  void setScenario(const mrwb::Scenario& s);
  const mrwb::Scenario& scenario() const { return scenario_; }

  // Empty message: valid. Otherwise the InputError text from core, shown under the form.
  void setValidationMessage(const QString& message);
  void setMemoryEstimate(const QString& text);

 signals:
  void scenarioEdited(const mrwb::Scenario& s);
  void presetRequested(const QString& name);

 private:
  QDoubleSpinBox* addDouble(QFormLayout* form, const QString& label, double min, double max,
                            int decimals, double step, const QString& suffix, const QString& tip);
  QSpinBox* addInt(QFormLayout* form, const QString& label, int min, int max, int step,
                   const QString& tip);
  // Applies `edit` to the scenario copy and reports it, unless the form is being filled.
  template <typename F>
  void edit(F&& f);
  void fillBackends();
  static void selectData(QComboBox* combo, const QString& value);

  mrwb::Scenario scenario_;
  bool filling_ = false;

  QComboBox* preset_ = nullptr;
  QLineEdit* name_ = nullptr;
  QComboBox* phantom_ = nullptr;
  QSpinBox* cellsPerVoxel_ = nullptr;
  QDoubleSpinBox* discRadius_ = nullptr;
  QComboBox* backgroundTissue_ = nullptr;
  QComboBox* vesselTissue_ = nullptr;
  QDoubleSpinBox* vesselRadius_ = nullptr;
  QDoubleSpinBox* vesselAngle_ = nullptr;
  QDoubleSpinBox* vesselOffset_ = nullptr;
  QDoubleSpinBox* tr_ = nullptr;
  QDoubleSpinBox* te_ = nullptr;
  QDoubleSpinBox* flip_ = nullptr;
  QDoubleSpinBox* fov_ = nullptr;
  QSpinBox* matrix_ = nullptr;
  QDoubleSpinBox* bandwidth_ = nullptr;
  QSpinBox* dummyScans_ = nullptr;
  QComboBox* sequenceType_ = nullptr;
  QSpinBox* coils_ = nullptr;
  QSpinBox* acceleration_ = nullptr;
  QSpinBox* acsLines_ = nullptr;
  QComboBox* reconMethod_ = nullptr;
  QSpinBox* kernelPe_ = nullptr;
  QSpinBox* kernelRo_ = nullptr;
  QDoubleSpinBox* lambda_ = nullptr;
  QComboBox* approach_ = nullptr;
  QDoubleSpinBox* eta_ = nullptr;
  QDoubleSpinBox* clip_ = nullptr;
  QComboBox* backend_ = nullptr;
  QLabel* validation_ = nullptr;
  QLabel* memory_ = nullptr;
};

}  // namespace mrwb::ui
