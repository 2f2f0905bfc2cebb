// CUDA LBM against its CPU reference. Every case SKIPs visibly when no CUDA device is present.
#include <QTest>

#include <cmath>

#include "flow_test_cases.hpp"
#include "mrwb/flow/lbm.hpp"
#include "mrwb_gpu/base/device.hpp"
#include "mrwb_gpu/flow/lbm_cuda.hpp"

using namespace mrwb;

namespace {
// max |u_gpu - u_cpu| / max |u_cpu| over all nodes and components.
double max_rel_diff(const LbmResult& a, const LbmResult& b) {
  double d = 0, m = 0;
  for (std::size_t i = 0; i < a.ux.size(); ++i) {
    d = std::max({d, std::abs(double(a.ux[i]) - b.ux[i]), std::abs(double(a.uy[i]) - b.uy[i]), std::abs(double(a.uz[i]) - b.uz[i])});
    m = std::max(m, std::hypot(double(b.ux[i]), double(b.uy[i]), double(b.uz[i])));
  }
  return d / m;
}
}  // namespace

class TestGpuFlow : public QObject {
  Q_OBJECT
 private slots:
  void init() {
    if (!gpu::device_available()) QSKIP(qPrintable(QString::fromStdString(gpu::device_description())));
  }

  // D2Q9 on the asymmetric bifurcation, run to steady state on both: same steps, velocities within 1e-4
  // of the peak.
  void d2q9MatchesCpu() {
    const VesselTree t = flow_cases::bifurcation_tree(0.7);
    const LbmDomain d = lbm_domain_from_cells(t, flow_cases::cells_of(t), 0.05);
    LbmParams p;
    p.tau = 0.8;
    p.max_steps = 60000;
    p.tolerance = 1e-5;
    const LbmResult c = lbm_d2q9_cpu(d, p), g = gpu::lbm_run_cuda(d, p);
    const double diff = max_rel_diff(g, c);
    qInfo("D2Q9 bifurcation %d x %d: CPU %d steps (res %.3g), CUDA %d steps (res %.3g); max rel diff %.3g", d.nx, d.ny,
          c.steps, c.residual, g.steps, g.residual, diff);
    QCOMPARE(g.backend, std::string("cuda"));
    QVERIFY(c.converged && g.converged);
    QVERIFY(diff <= 1e-4);
  }

  // MRT (default rates) on both lattices, a fixed 2000 steps on the bifurcation and the 3-D tube.
  void mrtMatchesCpu_data() {
    QTest::addColumn<int>("dims");
    QTest::newRow("D2Q9 bifurcation") << 2;
    QTest::newRow("D3Q19 tube") << 3;
  }
  void mrtMatchesCpu() {
    QFETCH(int, dims);
    VesselTree t = flow_cases::bifurcation_tree(0.7);
    if (dims == 3) {
      VesselTreeSpec s;
      s.dims = 3;
      s.radius_m = 0.6e-3;
      s.length_m = 5e-3;
      t = generate_vessel_tree(s);
    }
    const LbmDomain d = lbm_domain_from_cells(t, flow_cases::cells_of(t), 0.05);
    LbmParams p;
    p.tau = 0.6;
    p.collision = LbmCollision::Mrt;
    p.max_steps = 2000;
    p.tolerance = 1e-12;
    const LbmResult c = lbm_run_cpu(d, p), g = gpu::lbm_run_cuda(d, p);
    const double diff = max_rel_diff(g, c);
    qInfo("MRT %s %d x %d x %d: %d steps; max rel diff %.3g", dims == 3 ? "D3Q19" : "D2Q9", d.nx, d.ny, d.nz, g.steps, diff);
    QCOMPARE(g.steps, c.steps);
    QVERIFY(diff <= 1e-4);
  }

  // D3Q19 on a 3-D tube (radius 6 cells), a fixed 3000 steps on both.
  void d3q19MatchesCpu() {
    VesselTreeSpec s;
    s.dims = 3;
    s.radius_m = 0.6e-3;
    s.length_m = 5e-3;
    const VesselTree t = generate_vessel_tree(s);
    const LbmDomain d = lbm_domain_from_cells(t, flow_cases::cells_of(t), 0.05);
    LbmParams p;
    p.tau = 0.8;
    p.max_steps = 3000;
    p.tolerance = 1e-12;
    const LbmResult c = lbm_d3q19_cpu(d, p), g = gpu::lbm_run_cuda(d, p);
    const double diff = max_rel_diff(g, c);
    qInfo("D3Q19 tube %d x %d x %d: %d steps; max rel diff %.3g", d.nx, d.ny, d.nz, g.steps, diff);
    QCOMPARE(g.steps, c.steps);
    QVERIFY(diff <= 1e-4);
  }
};

QTEST_GUILESS_MAIN(TestGpuFlow)
#include "test_gpu_flow.moc"
