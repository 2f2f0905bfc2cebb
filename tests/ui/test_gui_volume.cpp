// A 3-D time-of-flight run in the GUI: the Metrics table reports the whole volume against its truth
// (compare_volumes over every voxel, not the central plane), and the Volume panel shows the MIP along z
// (each pixel the brightest of its column) and every plane.
#include <QSignalSpy>
#include <QTableWidget>
#include <QTest>

#include "fixtures.hpp"
#include "gui.hpp"
#include "mrwb/metrics/metrics.hpp"
#include "mrwb/scenario/scenario.hpp"
#include "mrwb_ui/comparison_view.hpp"
#include "mrwb_ui/image_view.hpp"
#include "mrwb_ui/main_window.hpp"
#include "mrwb_ui/volume_view.hpp"
#include "mrwb_ui/vtk_opengl_widget.hpp"

using mrwb::ui::MainWindow;
using mrwb::ui::VolumeView;

class TestGuiVolume : public QObject {
  Q_OBJECT
 public:
  static void initMain() { mrwb::ui::VtkOpenGLWidget::setDefaultSurfaceFormat(); }

 private slots:
  void tofVolumeMetricsAndMip() {
    MainWindow w;
    QVERIFY(mrwb::test::showQuietly(w));
    mrwb::Scenario s = mrwb::load_scenario(MRWB_SOURCE_DIR "/phantoms/tof_3d.json");
    s.backend = mrwb::Backend::Cpu;  // as shipped: 32^2 x 11 partitions of 4 mm, cells 4 mm
    w.setScenario(s);
    QSignalSpy finished(&w, &MainWindow::runFinished);
    w.run();
    QTRY_VERIFY_WITH_TIMEOUT(!finished.isEmpty(), 120000);
    QVERIFY2(finished.first().at(0).toBool(), qPrintable(w.lastError()));
    const auto r = w.lastResult();
    QVERIFY(r->recon_volume && r->truth_volume && r->volume_metrics);
    QCOMPARE(r->recon_volume->nz, 11);
    // The table shows the volume's metrics, as compare_volumes gives them, not the central plane's.
    const mrwb::Metrics m = mrwb::compare_volumes(r->recon_volume->magnitude(), r->truth_volume->magnitude(),
                                                  r->recon_volume->nx, r->recon_volume->ny, r->recon_volume->nz);
    QCOMPARE(w.metricsTable()->item(0, 0)->text(), QString::number(m.psnr_db, 'f', 2));
    QCOMPARE(w.metricsTable()->item(0, 3)->text(), QString::number(m.ssim, 'f', 4));
    QVERIFY(std::abs(m.psnr_db - r->metrics.psnr_db) > 1e-6);  // it is another number than the plane's
    QVERIFY(std::isfinite(r->metrics.psnr_db));
    qInfo("tof_3d at 32^2 x 11: volume PSNR %.2f dB, SSIM %.4f (central plane %.2f dB)", m.psnr_db, m.ssim,
          r->metrics.psnr_db);

    // The Compare panel (On Run, the scenario's FFT) reconstructs the whole volume too: the same figures.
    const mrwb::ReconComparison& cmp = w.comparisonView()->comparison();
    QCOMPARE(cmp.planes, 11);
    QCOMPARE(cmp.entries.size(), std::size_t(1));
    QVERIFY(cmp.entries[0].has_metrics);
    QCOMPARE(cmp.entries[0].metrics.psnr_db, m.psnr_db);
    QCOMPARE(cmp.entries[0].metrics.ssim, m.ssim);
    QTableWidget* ct = w.comparisonView()->metricsTable();
    QCOMPARE(ct->item(0, 3)->text(), QString::number(m.psnr_db, 'f', 2));
    QVERIFY(ct->item(0, 7)->text().contains(QStringLiteral("over 11 planes")));
    QCOMPARE(w.comparisonView()->imagePane(0)->values(), r->recon.magnitude());  // the central plane

    VolumeView* v = w.volumeView();
    QVERIFY(v->hasVolume());
    QCOMPARE(v->sliceCount(), 11);
    v->setMode(VolumeView::Mode::ReconMip);
    const std::vector<float> shown = v->view()->values();
    const std::vector<float> mag = r->recon_volume->magnitude();
    const std::size_t plane = r->recon_volume->plane();
    QCOMPARE(shown.size(), plane);
    for (std::size_t i = 0; i < plane; ++i) {
      float mx = 0;
      for (int z = 0; z < 11; ++z) mx = std::max(mx, mag[z * plane + i]);
      QCOMPARE(shown[i], mx);
    }
    v->setMode(VolumeView::Mode::ReconSlice);
    v->setSlice(3);
    const std::vector<float> slice3 = v->view()->values();
    for (std::size_t i = 0; i < plane; ++i) QCOMPARE(slice3[i], mag[3 * plane + i]);
    QVERIFY(v->metricsText().contains(QStringLiteral("7x7x7")));
  }
};

QTEST_MAIN(TestGuiVolume)
#include "test_gui_volume.moc"
