#pragma once
// The flow field of the scenario (core: scenario_flow_field with the scenario's solver, Poiseuille or
// LBM) in the imaging slice: velocity magnitude as a colour image with a colorbar, plus arrows
// (vtkGlyph3D) on a subsampled set of fluid cells. "Compute flow" runs core in a worker thread with a
// progress bar and Cancel; the interface never blocks.
#include <QString>
#include <QWidget>
#include <vector>
#include <memory>

#include <vtkNew.h>

#include "mrwb/base/progress.hpp"
#include "mrwb/flow/flow.hpp"
#include "mrwb/flow/lbm.hpp"
#include "mrwb/scenario/scenario.hpp"
#include "mrwb/scenario/scenario_phantom.hpp"
#include "mrwb_ui/background_job.hpp"

class QComboBox;
class QLabel;
class QProgressBar;
class QPushButton;
class vtkActor;
class vtkImageActor;
class vtkImageData;
class vtkLookupTable;
class vtkScalarBarActor;
class vtkTextActor;

namespace mrwb::ui {

class VtkOpenGLWidget;

class FlowView : public QWidget {
  Q_OBJECT
 public:
  explicit FlowView(QWidget* parent = nullptr);
  ~FlowView() override;  // cancels a running computation and waits for it

  // Keeps the scenario for the next Compute flow; the shown field is marked out of date.
  void setScenario(const mrwb::Scenario& scenario);
  // LBM runner of the selected backend (default: core's lbm_run_cpu).
  void setLbmRunner(mrwb::LbmRunner runner);
  // Offers another LBM backend in the backend box (the application passes the CUDA twin when a device
  // is present: ui/ never links gpu/) and selects it. Returns its index in the box.
  int addLbmBackend(const QString& label, mrwb::LbmRunner runner);
  QComboBox* backendBox() const { return backendBox_; }
  // The label of the backend the shown field was computed with ("" before any).
  QString fieldBackend() const { return fieldBackend_; }

  bool busy() const { return worker_->busy(); }
  bool hasField() const { return field_ != nullptr; }
  const mrwb::FlowField* field() const { return field_.get(); }
  QString errorText() const { return error_; }
  VtkOpenGLWidget* canvas() const { return canvas_; }

 public slots:
  void computeFlow();  // no-op while busy
  void cancel();

 signals:
  void flowComputed(bool ok);  // after computeFlow: ok = a field is shown; false: error or cancelled

 private:
  void onFinished();
  void showField();

  mrwb::Scenario scenario_;
  std::vector<mrwb::LbmRunner> runners_;  // one per backendBox_ entry
  QString fieldBackend_;
  BackgroundJob* worker_;
  struct Job;
  std::shared_ptr<Job> job_;
  std::shared_ptr<const mrwb::FlowField> field_;
  QString error_;

  QComboBox* backendBox_;
  QPushButton* computeButton_;
  QPushButton* cancelButton_;
  QProgressBar* progress_;
  QLabel* status_;
  VtkOpenGLWidget* canvas_;
  vtkNew<vtkImageData> speed_;
  vtkNew<vtkImageActor> speedActor_;
  vtkNew<vtkActor> arrows_;
  vtkNew<vtkLookupTable> lut_;
  vtkNew<vtkScalarBarActor> colorbar_;
  vtkNew<vtkTextActor> titleText_;
};

}  // namespace mrwb::ui
