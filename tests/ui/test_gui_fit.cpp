// Views a room can read: after a run the recon, truth and error-map images fill at least 80 % of their
// view's shorter side, at 1280x800 and after a resize to a 1920x1080 projector; the error map's colorbar
// labels stay inside the view (no text pixel on its outer edges). The Compare room shows every method's image
// and error map whole, each image at least 300 px on a side, at both sizes. Region-of-interest statistics on
// Ctrl+drag.
#include <QApplication>
#include <QComboBox>
#include <QDockWidget>
#include <QDir>
#include <QHeaderView>
#include <QScrollBar>
#include <QTableWidget>
#include <QMouseEvent>
#include <QSignalSpy>
#include <QTabBar>
#include <QTest>

#include "fixtures.hpp"
#include "gui.hpp"
#include "mrwb/metrics/region_stats.hpp"
#include "mrwb_ui/comparison_view.hpp"
#include "mrwb_ui/image_view.hpp"
#include "mrwb_ui/main_window.hpp"
#include "mrwb_ui/vtk_opengl_widget.hpp"
#include "mrwb_ui/workbench_style.hpp"

using mrwb::ui::ImageView;
using mrwb::ui::MainWindow;

namespace {

// The image's extent along the view's shorter side, as a fraction of that side.
double shorterSideFill(const ImageView* v) {
  const QRectF r = v->imageRectPx();
  const double w = v->width() * v->devicePixelRatioF(), h = v->height() * v->devicePixelRatioF();
  return w <= h ? r.width() / w : r.height() / h;
}

// Brightest grey of the outermost `px` columns on the right and rows at the bottom of the view's frame:
// the background there is dark, colorbar labels (grey-blue, ~180) are bright.
int edgeMaxGrey(ImageView* v, int px) {
  const QImage g = v->grabFramebuffer().convertToFormat(QImage::Format_Grayscale8);
  int mx = 0;
  for (int y = 0; y < g.height(); ++y)
    for (int x = g.width() - px; x < g.width(); ++x) mx = std::max<int>(mx, g.constScanLine(y)[x]);
  for (int y = g.height() - px; y < g.height(); ++y)
    for (int x = 0; x < g.width(); ++x) mx = std::max<int>(mx, g.constScanLine(y)[x]);
  return mx;
}

void checkViews(MainWindow& w, const char* when) {
  for (ImageView* v : {w.reconView(), w.truthView(), w.errorView()}) {
    const double fill = shorterSideFill(v);
    const QRectF r = v->imageRectPx();
    qInfo("%s, %s %dx%d: image %.0fx%.0f px, %.1f %% of the shorter side%s", when, qPrintable(v->objectName()),
          v->width(), v->height(), r.width(), r.height(), 100 * fill,
          v == w.errorView() ? (v->colorbarHorizontal() ? ", colorbar under it" : ", colorbar beside it") : "");
    QVERIFY2(fill >= 0.80, qPrintable(v->objectName()));
  }
  const int edge = edgeMaxGrey(w.errorView(), 2);
  qInfo("%s: brightest grey on the error view's outer 2 px: %d", when, edge);
  QVERIFY2(edge < 110, "colorbar text reaches the edge of the view");
}

// Every method's image and error map inside the window and visible, each image >= 300 px on both sides; the
// metrics table whole (every row, every column without scrolling). MRWB_SCREENSHOT_DIR: the window saved there.
void checkCompareRoom(MainWindow& w, const char* when) {
  mrwb::ui::ComparisonView* c = w.comparisonView();
  const QRect window = w.rect();
  for (int i = 0; i < c->paneCount(); ++i)
    for (mrwb::ui::ImageView* v : {c->imagePane(i), c->errorPane(i)}) {
      const QRect inWindow(v->mapTo(&w, QPoint(0, 0)), v->size());
      const QRectF r = v->imageRectPx();
      const double dpr = v->devicePixelRatioF();
      qInfo("%s, compare pane %d '%s': view %dx%d at (%d, %d), image %.0fx%.0f px", when, i, qPrintable(v->title()),
            v->width(), v->height(), inWindow.x(), inWindow.y(), r.width() / dpr, r.height() / dpr);
      QVERIFY2(v->isVisible() && window.contains(inWindow), qPrintable(v->title()));
      QVERIFY2(r.width() / dpr >= 300 && r.height() / dpr >= 300, qPrintable(v->title()));
    }
  QTableWidget* t = c->metricsTable();
  int columns = 0;
  for (int col = 0; col < t->columnCount(); ++col) columns += t->columnWidth(col);
  qInfo("%s: truth pane %s; table %dx%d, columns %d px in a %d px viewport, %d rows", when,
        c->truthPaneShown() ? "shown" : "left out (the error maps show it)", t->width(), t->height(), columns,
        t->viewport()->width(), t->rowCount());
  QVERIFY(t->isVisible() && window.contains(QRect(t->mapTo(&w, QPoint(0, 0)), t->size())));
  QVERIFY(!t->horizontalScrollBar()->isVisible() && !t->verticalScrollBar()->isVisible());
  QVERIFY(columns <= t->viewport()->width());
  if (const QByteArray dir = qgetenv("MRWB_SCREENSHOT_DIR"); !dir.isEmpty())
    QVERIFY(w.grab().save(QDir(QString::fromLocal8Bit(dir)).filePath(QStringLiteral("compare_%1.png").arg(when))));
}

}  // namespace

class TestGuiFit : public QObject {
  Q_OBJECT
 public:
  static void initMain() { mrwb::ui::VtkOpenGLWidget::setDefaultSurfaceFormat(); }

 private slots:
  void imagesFillTheirViews() {
    MainWindow w;
    QVERIFY(mrwb::test::showQuietly(w));
    w.liveAction()->setChecked(false);
    w.setScenario(mrwb::test::cpu_preset("straight_vessel", 32, 50));
    QSignalSpy finished(&w, &MainWindow::runFinished);
    w.run();
    QTRY_VERIFY_WITH_TIMEOUT(!finished.isEmpty(), 60000);
    QVERIFY(finished.first().at(0).toBool());
    QTest::qWait(100);
    checkViews(w, "1280x800");
    // The Run panel under the Scenario editor: a three-line result message leaves its backend box whole.
    auto* backend = w.findChild<QComboBox*>(QStringLiteral("backend"));
    QVERIFY(backend);
    QVERIFY2(backend->height() >= backend->minimumSizeHint().height(),
             qPrintable(QStringLiteral("backend box %1 px high, needs %2").arg(backend->height()).arg(backend->minimumSizeHint().height())));
    w.resize(1920, 1080);
    QTest::qWait(300);  // the views get their new size and refit
    checkViews(w, "1920x1080");
  }

  // The Compare room after a Run of two methods (FFT and GRAPPA R = 2, 8 coils, 64^2): whole panes of 300 px
  // images at 1280x800 and 1920x1080; leaving it brings the docks back.
  void compareRoomFillsTheWindow() {
    mrwb::ui::applyWorkbenchStyle(*qApp);  // as mrwb-gui starts: its font
    MainWindow w;
    QVERIFY(mrwb::test::showQuietly(w));
    w.resize(1280, 800);
    w.liveAction()->setChecked(false);
    mrwb::Scenario s = mrwb::test::cpu_preset("straight_vessel", 64, 20);
    s.coils.count = 8;
    s.sequence.acceleration = 2;
    s.sequence.acs_lines = 16;
    s.recon.method = mrwb::ReconMethod::Grappa;
    w.setScenario(s);
    w.comparisonView()->setBackend(mrwb::Backend::Cpu);
    QSignalSpy finished(&w, &MainWindow::runFinished);
    w.run();
    QTRY_VERIFY_WITH_TIMEOUT(!finished.isEmpty(), 120000);
    QVERIFY2(finished.first().at(0).toBool(), qPrintable(w.lastError()));
    QCOMPARE(w.comparisonView()->paneCount(), 2);
    auto* scenarioDock = w.findChild<QDockWidget*>(QStringLiteral("scenarioDock"));
    QVERIFY(scenarioDock && scenarioDock->isVisible());
    QVERIFY(w.showPanel(QStringLiteral("compare")));
    QVERIFY(w.inCompareRoom());
    QTest::qWait(300);  // the panes get their sizes and refit
    QVERIFY(!scenarioDock->isVisible());
    checkCompareRoom(w, "1280x800");
    if (QTest::currentTestFailed()) return;
    w.resize(1920, 1080);
    QTest::qWait(300);
    checkCompareRoom(w, "1920x1080");
    if (QTest::currentTestFailed()) return;
    QVERIFY(w.comparisonView()->truthPaneShown());  // five panes of 300 px fit in 1920
    w.showCompareRoom(false);
    QTRY_VERIFY(scenarioDock->isVisible());
    QVERIFY(!w.inCompareRoom());
  }

  // The right dock area's tabs (eleven panels) show whole titles at 1280x800: each tab is as long as the same
  // tab on a bar with room to spare (the bar scrolls instead of squeezing "Phantom 3-D" to "Phanto…").
  void dockTabTitlesWhole() {
    mrwb::ui::applyWorkbenchStyle(*qApp);  // as mrwb-gui starts: its font and tab padding
    MainWindow w;
    QVERIFY(mrwb::test::showQuietly(w));
    w.resize(1280, 800);
    QTest::qWait(200);
    int checked = 0;
    for (QTabBar* bar : w.findChildren<QTabBar*>(Qt::FindDirectChildrenOnly)) {
      if (bar->count() < 5 || !bar->isVisible()) continue;
      const bool vertical = bar->shape() == QTabBar::RoundedEast || bar->shape() == QTabBar::RoundedWest;
      QTabBar roomy(&w);  // same style sheet, font and shape, never short of room
      roomy.setShape(bar->shape());
      roomy.setFont(bar->font());
      roomy.setElideMode(Qt::ElideNone);
      for (int i = 0; i < bar->count(); ++i) roomy.addTab(bar->tabText(i));
      roomy.resize(vertical ? QSize(bar->width(), 100000) : QSize(100000, bar->height()));
      roomy.ensurePolished();
      for (int i = 0; i < bar->count(); ++i) {
        const int length = vertical ? bar->tabRect(i).height() : bar->tabRect(i).width();
        const int whole = vertical ? roomy.tabRect(i).height() : roomy.tabRect(i).width();
        QVERIFY2(length >= whole, qPrintable(QStringLiteral("tab '%1': %2 px, whole %3 px")
                                                 .arg(bar->tabText(i)).arg(length).arg(whole)));
        ++checked;
      }
    }
    QVERIFY(checked >= 10);
  }

  // Ctrl + left drag draws a region of interest: its statistics are those of the pixels between the two
  // corners (both included), shown in the info line, and kept when a new image of the same size arrives.
  void regionOfInterestOnCtrlDrag() {
    ImageView view(QStringLiteral("roi"));
    view.resize(400, 400);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    const int n = 32;
    std::vector<float> img(n * n);
    for (int y = 0; y < n; ++y)
      for (int x = 0; x < n; ++x) img[y * n + x] = static_cast<float>(x + 0.25 * y * y);
    view.setImage(img, n, n, false, QStringLiteral("ramp"));
    QTest::qWait(50);
    // Widget position of pixel (x, y)'s centre (y up).
    const QRectF r = view.imageRectPx();
    const double dpr = view.devicePixelRatioF();
    auto at = [&](int x, int y) {
      return QPointF((r.left() + (x + 0.5) * r.width() / n) / dpr, (r.bottom() - (y + 0.5) * r.height() / n) / dpr);
    };
    QCOMPARE(view.pixelAt(at(5, 7)), QPoint(5, 7));
    const QPointF a = at(4, 6), b = at(11, 9);
    QMouseEvent press(QEvent::MouseButtonPress, a, view.mapToGlobal(a), Qt::LeftButton, Qt::LeftButton, Qt::ControlModifier);
    QMouseEvent move(QEvent::MouseMove, b, view.mapToGlobal(b), Qt::NoButton, Qt::LeftButton, Qt::ControlModifier);
    QMouseEvent release(QEvent::MouseButtonRelease, b, view.mapToGlobal(b), Qt::LeftButton, Qt::NoButton, Qt::ControlModifier);
    const double window = view.colorWindow();
    QApplication::sendEvent(&view, &press);
    QApplication::sendEvent(&view, &move);
    QApplication::sendEvent(&view, &release);
    QCOMPARE(view.colorWindow(), window);  // a region, not a window/level drag
    QVERIFY(view.roiStats().has_value());
    const mrwb::RegionStats st = *view.roiStats(), want = mrwb::region_stats(img, n, n, 4, 6, 12, 10);
    QCOMPARE(st.pixels, 8L * 4);
    QCOMPARE(st.mean, want.mean);
    QCOMPARE(st.sd, want.sd);
    // By hand: mean of x over 4..11 is 7.5, of 0.25 y^2 over 6..9 is 0.25 * (36 + 49 + 64 + 81) / 4.
    QVERIFY(std::abs(st.mean - (7.5 + 0.25 * 230 / 4)) < 1e-9);
    for (std::size_t i = 0; i < img.size(); ++i) img[i] *= 2;  // a live update of the same size
    view.setImage(img, n, n, false, QStringLiteral("ramp x 2"));
    QVERIFY(std::abs(view.roiStats()->mean - 2 * want.mean) < 1e-9);
    QVERIFY(std::abs(view.roiStats()->snr() - want.snr()) < 1e-9);
    view.setImage(std::vector<float>(16 * 16, 1.f), 16, 16, false, QStringLiteral("other size"));
    QVERIFY(!view.roiStats().has_value());
  }
};

QTEST_MAIN(TestGuiFit)
#include "test_gui_fit.moc"
