#pragma once
// Side-by-side reconstruction comparison: one RawData reconstructed with several
// methods (core: compare_reconstructions) in a worker thread; the truth and each result in linked
// ImageViews (zoom, pan, window/level follow each other), under each its error map (signed, or
// absolute with a colorbar) on one shared scale, a colormap choice, and a metrics table (PSNR, % error,
// NRMSE, SSIM, time, backend; over every voxel for multi-slice / 3-D data, whose panes show the central
// plane). Export: the selected image to PNG (its window/level) or NIfTI, the raw
// data to ISMRMRD or BART .cfl (core file_io). Click a pane to select it.
// Compare models: the scenario simulated and reconstructed with each simulation model (core:
// compare_models) in the same worker; the Lagrangian image takes the truth's pane as the reference, the
// Eulerian image sits beside it over their difference, the table's Error [%] is the relative RMS difference.
#include <QString>
#include <QWidget>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "mrwb/base/image.hpp"
#include "mrwb/base/image_volume.hpp"
#include "mrwb/base/progress.hpp"
#include "mrwb/base/raw_data.hpp"
#include "mrwb/metrics/recon_comparison.hpp"
#include "mrwb/scenario/scenario.hpp"
#include "mrwb_ui/background_job.hpp"
#include "mrwb_ui/image_view.hpp"

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QSpinBox;
class QGridLayout;
class QLabel;
class QProgressBar;
class QPushButton;
class QTableWidget;

namespace mrwb::ui {

class ComparisonView : public QWidget {
  Q_OBJECT
 public:
  // What the second row shows: |image| − |truth| signed or absolute, or each method's g-factor map (noise
  // amplification, Pruessmann et al. 1999 / Robson et al. 2008), computed when g-factor maps are on.
  enum class ErrorMode { Signed, Absolute, Gfactor };
  explicit ComparisonView(QWidget* parent = nullptr);
  ~ComparisonView() override;  // cancels a running comparison and waits for it

  // Methods preselected from the scenario (its recon method, plus FFT) when its method changes, and its
  // backend; GRAPPA runs with the scenario's GRAPPA parameters.
  void setScenario(const mrwb::Scenario& scenario);
  // Whether the main Run reconstructs with every chosen method after simulating (default on).
  bool compareOnRun() const;
  void setCompareOnRun(bool on);
  // CG parameters (iterations, Tikhonov lambda) used for the "cg" method.
  void setCgParameters(int iterations, double lambda);
  // The CG's W: identity | finite-difference | anatomical (Stone et al. 2008's anatomically constrained W, cut at the
  // edges of the truth image, which here plays the reference scan; requests() throws InputError without it).
  void setCgRegularizer(const std::string& regularizer);
  // The requests run() would send to core: chosen methods with their parameters, SENSE / CS (and a trajectory's
  // cg) with the scenario's coil maps, computed here when not yet known (run() computes them in its worker
  // instead, off the GUI thread: ESPIRiT takes seconds on a large matrix).
  std::vector<mrwb::ComparisonRequest> requests() const;
  // Whether the coil maps of the current data and scenario are known (computed by requests() or a finished run).
  bool coilMapsKnown() const { return !maps_.empty(); }
  // The data the comparison runs on and the truth (optional) its metrics refer to.
  void setRawData(const mrwb::RawData& raw, std::optional<mrwb::Image2D> truth = std::nullopt);
  // Multi-slice / 3-D raw data (every slice or partition) and the truth volume: each method reconstructs the
  // whole volume, the table's metrics are over every voxel, the panes show the central plane.
  void setVolumeData(const mrwb::RawData& raw, std::optional<mrwb::ImageVolume> truth = std::nullopt);
  void setMethods(const std::vector<mrwb::ReconMethod>& methods);
  std::vector<mrwb::ReconMethod> methods() const;
  void setBackend(mrwb::Backend backend);
  // Shows results computed elsewhere (e.g. by the pipeline).
  void setComparison(const mrwb::ReconComparison& comparison);
  // RMS(|E| − |L|) / RMS(|L|) while the view shows a model comparison; nullopt otherwise.
  std::optional<double> modelDifference() const { return modelDifference_; }
  QString statusText() const;
  const mrwb::ReconComparison& comparison() const { return comparison_; }

  void setColormap(ImageView::Colormap map);
  void setErrorMode(ErrorMode mode);
  ErrorMode errorMode() const { return errorMode_; }
  void setLinked(bool linked);
  bool linked() const { return linked_; }

  bool busy() const { return worker_->busy(); }
  bool hasRawData() const { return raw_ != nullptr; }
  int paneCount() const { return static_cast<int>(imagePanes_.size()); }  // one per entry
  ImageView* truthPane() const { return truthPane_; }
  bool truthPaneShown() const { return truthShown_; }  // the grid leaves it out when it would crowd the methods
  ImageView* gfactorPane(int i) const;  // shown beside the error map once the method has a g-factor map
  ImageView* imagePane(int i) const;
  ImageView* errorPane(int i) const;
  QTableWidget* metricsTable() const { return table_; }
  int selectedPane() const { return selected_; }  // -1: truth
  void selectPane(int pane);
  QString lastError() const { return lastError_; }

  // Exports; false with lastError() set on failure (nothing half-written: core writes atomically).
  bool exportImagePng(const QString& path);     // selected pane, its current window/level
  bool exportGfactorPng(const QString& path);   // selected method's g-factor map, 0 .. its maximum
  // g-factor maps with the next run: SENSE on a regular comb analytic, other methods `replicas` replicas.
  void setGfactorMaps(bool on, int replicas = 32);
  bool exportImageNifti(const QString& path);   // selected pane, magnitude
  bool exportRawIsmrmrd(const QString& path);
  bool exportRawCfl(const QString& path);       // k-space (+ "<path>_traj" for non-Cartesian data)

 public slots:
  void run();  // no-op while busy or without raw data
  // Both simulation models on the scenario of setScenario; no-op while busy.
  void compareModels();
  void cancel();

 signals:
  void comparisonFinished(bool ok);  // ok: results shown; false: cancelled or failed
  void modelComparisonFinished(bool ok);
  void paneSelected(int pane);

 protected:
  bool eventFilter(QObject* watched, QEvent* event) override;

 private:
  void onFinished();
  void onModelsFinished();
  // Shows `comparison` with its reference (truth) pane called `referenceLabel` and errors against `referenceName`.
  void showComparison(const mrwb::ReconComparison& comparison, const QString& referenceLabel, const QString& referenceName);
  void rebuildPanes();
  // Places the shown panes in the grid that gives each image the most pixels (pane_grid.hpp).
  void layoutPanes();
  bool showsGfactorPanes() const;  // some method has a g-factor map and the error panes show errors
  void showImages();
  void showErrorMaps();
  void showGfactorMap(ImageView* view, const mrwb::ComparisonEntry& e);
  void fitTableHeight();
  void fillTable();
  void linkView(ImageView* view);
  const mrwb::Image2D* selectedImage(QString* label) const;
  bool fail(const QString& message);

  std::shared_ptr<const mrwb::RawData> raw_;
  // SENSE / CS (or non-Cartesian cg) coil maps of raw_ under scenario_'s recon.maps (ESPIRiT's work done once per
  // data set), and their generation: a run caches the maps it computed only if no data or scenario came since.
  mutable std::vector<std::complex<float>> maps_;
  int mapsGeneration_ = 0;
  void forgetMaps();
  // requests() but for the coil maps.
  std::vector<mrwb::ComparisonRequest> unmappedRequests() const;
  std::shared_ptr<const mrwb::Image2D> truth_;
  std::shared_ptr<const mrwb::ImageVolume> truthVolume_;  // volume data (setVolumeData) only
  mrwb::ReconComparison comparison_;
  ErrorMode errorMode_ = ErrorMode::Signed;
  ImageView::Colormap colormap_ = ImageView::Colormap::Grey;
  bool linked_ = true;
  bool propagating_ = false;
  int selected_ = -1;
  QString lastError_;
  QString referenceLabel_, referenceName_;  // the truth pane's title, and how error maps name it
  std::optional<double> modelDifference_;
  mrwb::Scenario scenario_;  // what Compare models runs

  BackgroundJob* worker_;
  struct Job;
  std::shared_ptr<Job> job_;

  mrwb::ReconSpec reconSpec_;                        // the scenario's GRAPPA parameters
  std::optional<mrwb::ReconMethod> scenarioMethod_;  // its recon method when the methods were last preselected
  std::vector<QCheckBox*> methodBoxes_;
  QCheckBox* onRunBox_;
  QCheckBox* gfactorBox_;
  QSpinBox* gReplicas_;
  QSpinBox* cgIterations_;
  QDoubleSpinBox* cgLambda_;
  QComboBox* cgRegularizer_;
  QComboBox* backendBox_;
  QComboBox* colormapBox_;
  QComboBox* errorBox_;
  QCheckBox* linkBox_;
  QPushButton* runButton_;
  QPushButton* modelsButton_;
  QPushButton* cancelButton_;
  QProgressBar* progress_;
  QLabel* status_;
  static constexpr int kPaneSpacingPx = 4;
  static constexpr int kReadableImagePx = 300;
  QWidget* panes_;
  QGridLayout* grid_;
  ImageView* truthPane_;
  bool truthShown_ = true;
  std::vector<std::pair<ImageView*, int>> placement_;  // the grid as laid out last, to skip a relayout that changes nothing
  int placedColumns_ = 0;
  std::vector<ImageView*> imagePanes_, errorPanes_, gfactorPanes_;
  QTableWidget* table_;
};

}  // namespace mrwb::ui
