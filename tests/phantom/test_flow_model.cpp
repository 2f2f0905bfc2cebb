// Vessel model, generators, discretisation, scenario/JSON round trips, the .vti writer, the phantom's
// lattice velocity.
#include <QTest>

#include <bit>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

#include "files.hpp"
#include "input_error.hpp"
#include "mrwb/base/errors.hpp"
#include "mrwb/flow/face_flux.hpp"
#include "mrwb/flow/flow.hpp"
#include "mrwb/io/vti_writer.hpp"
#include "mrwb/phantom/phantom.hpp"
#include "mrwb/phantom/phantom_discretise.hpp"
#include "mrwb/phantom/tissue.hpp"
#include "mrwb/phantom/vessel_geometry.hpp"
#include "mrwb/phantom/vessel_generators.hpp"
#include "mrwb/scenario/scenario.hpp"
#include "mrwb/scenario/scenario_phantom.hpp"

using namespace mrwb;

namespace {
using mrwb::test::input_error;

VesselTreeSpec spec_of(const std::string& gen, int dims, std::uint64_t seed = 1) {
  VesselTreeSpec s;
  s.generator = gen;
  s.dims = dims;
  s.seed = seed;
  s.angle_jitter_deg = 8;
  s.terminals = 40;
  return s;
}
}  // namespace

class TestFlowModel : public QObject {
  Q_OBJECT
 private slots:
  void tissuesAtBothFields() {
    for (const auto& n : tissue_names_1p5T()) {
      const auto& a = tissue_1p5T(n);
      const auto& b = tissue_3T(n);
      if (n == "background") continue;
      QVERIFY(a.T2star_s > 0 && a.T2star_s <= a.T2_s);
      QVERIFY(b.T2star_s > 0 && b.T2star_s <= b.T2_s);
      QVERIFY2(b.T1_s > a.T1_s, n.c_str());  // T1 lengthens with field strength
      QCOMPARE(&tissue_at(3.0, n), &b);
    }
    QVERIFY(input_error([] { tissue_at(7.0, "muscle"); }).contains("allowed: 1.5, 3"));
  }

  void generatorsAreReproducibleFromSeed_data() {
    QTest::addColumn<QString>("gen");
    QTest::addColumn<int>("dims");
    for (const auto& g : vessel_generator_names())
      for (int dims : {2, 3}) QTest::newRow((g + " " + std::to_string(dims) + "D").c_str()) << QString::fromStdString(g) << dims;
  }
  void generatorsAreReproducibleFromSeed() {
    QFETCH(QString, gen);
    QFETCH(int, dims);
    const auto s = spec_of(gen.toStdString(), dims, 77);
    const VesselTree a = generate_vessel_tree(s), b = generate_vessel_tree(s);
    QVERIFY(a == b);
    QCOMPARE(vessel_tree_to_json_text(a), vessel_tree_to_json_text(b));
    // Random generators change with the seed.
    if (gen == "multi_bifurcation" || gen == "organ_tree") QVERIFY(!(generate_vessel_tree(spec_of(gen.toStdString(), dims, 78)) == a));
    // JSON round trip is exact (every double bit for bit).
    const VesselTree c = vessel_tree_from_json_text(vessel_tree_to_json_text(a), "rt.json");
    QVERIFY(c == a);
    QCOMPARE(vessel_tree_to_json_text(c), vessel_tree_to_json_text(a));
    // Murray's law at every bifurcation: r0^3 = sum r_i^3.
    for (const auto& g : a.segments) {
      if (g.children.empty()) continue;
      double sum = 0;
      for (int ch : g.children) sum += std::pow(a.segments[ch].radius_m.front(), 3);
      QVERIFY(std::abs(sum / std::pow(g.radius_m.back(), 3) - 1) < 1e-9);
    }
    if (dims == 2)
      for (const auto& g : a.segments)
        for (const auto& p : g.centreline_m) QCOMPARE(p.z, 0.0);
  }

  void organTreeFillsItsRegion() {
    auto s = spec_of("organ_tree", 2, 5);
    s.terminals = 64;
    const VesselTree t = generate_vessel_tree(s);
    QCOMPARE(static_cast<int>(t.outlets().size()), 64);
    QCOMPARE(static_cast<int>(t.segments.size()), 2 * 64 - 1);
    // Terminals spread over all four quadrants of the ellipse.
    int quad[4] = {0, 0, 0, 0};
    for (int o : t.outlets()) {
      const Vec3 p = t.segments[o].centreline_m.back();
      quad[(p.x > 0) + 2 * (p.y > 0)]++;
      QVERIFY(p.x * p.x / (0.05 * 0.05) + p.y * p.y / (0.035 * 0.035) <= 1);
    }
    for (int q : quad) QVERIFY(q >= 5);
  }

  // CCO's geometric optimisation: every bifurcation of the grown tree sits at a point where the three
  // segments meeting there hold no more volume than with the point at the centroid of their ends, the
  // whole tree has less volume than the tree grown with centroid branch points (same seed), Murray's law
  // holds and the tree stays connected (children start at their parent's end).
  void organTreeBranchPointsAreOptimised_data() {
    QTest::addColumn<int>("dims");
    QTest::newRow("2-D") << 2;
    QTest::newRow("3-D") << 3;
  }
  void organTreeBranchPointsAreOptimised() {
    QFETCH(int, dims);
    auto s = spec_of("organ_tree", dims, 11);
    s.terminals = 48;
    const VesselTree opt = generate_vessel_tree(s), cen = generate_organ_tree_unoptimised(s);
    auto len = [](const Vec3& a, const Vec3& b) { return std::hypot(a.x - b.x, a.y - b.y, a.z - b.z); };
    int moved = 0, bifurcations = 0;
    for (const auto& g : opt.segments) {
      if (g.children.empty()) continue;
      ++bifurcations;
      const Vec3 m = g.centreline_m.back();
      const Vec3 ends[3] = {g.centreline_m.front(), opt.segments[g.children[0]].centreline_m.back(),
                            opt.segments[g.children[1]].centreline_m.back()};
      const double w[3] = {std::pow(g.radius_m.back(), 2), std::pow(opt.segments[g.children[0]].radius_m.front(), 2),
                           std::pow(opt.segments[g.children[1]].radius_m.front(), 2)};
      const Vec3 c{(ends[0].x + ends[1].x + ends[2].x) / 3, (ends[0].y + ends[1].y + ends[2].y) / 3,
                   (ends[0].z + ends[1].z + ends[2].z) / 3};
      double v_here = 0, v_centroid = 0;
      for (int k = 0; k < 3; ++k) v_here += w[k] * len(m, ends[k]), v_centroid += w[k] * len(c, ends[k]);
      QVERIFY(v_here <= v_centroid * (1 + 1e-12));
      moved += v_here < v_centroid * (1 - 1e-6);
      for (int ch : g.children) QVERIFY(opt.segments[ch].centreline_m.front() == m);
      double sum = 0;
      for (int ch : g.children) sum += std::pow(opt.segments[ch].radius_m.front(), 3);
      QVERIFY(std::abs(sum / std::pow(g.radius_m.back(), 3) - 1) < 1e-9);
    }
    const double v_opt = opt.lumen_volume_m3(), v_cen = cen.lumen_volume_m3();
    qInfo("%dD organ tree, %d bifurcations (%d moved off the centroid): volume %.4g mm^3 optimised vs %.4g mm^3 "
          "with centroid branch points (%.1f %% less)",
          dims, bifurcations, moved, v_opt * 1e9, v_cen * 1e9, 100 * (1 - v_opt / v_cen));
    QCOMPARE(static_cast<int>(opt.outlets().size()), 48);
    QCOMPARE(static_cast<int>(opt.inlets().size()), 1);
    QVERIFY(moved >= bifurcations / 2);
    QVERIFY(v_opt < v_cen);
    QVERIFY(generate_vessel_tree(s) == opt);
  }

  // The shipped scenario files are the presets, written by `mrwb phantom --preset NAME --out`: each file
  // loads, equals its preset's JSON text byte for byte and writes back unchanged.
  void shippedPhantomFilesEqualTheirPresets() {
    const char* src = std::getenv("MRWB_SOURCE_DIR");
    QVERIFY2(src, "MRWB_SOURCE_DIR not set");
    for (const char* name : {"straight_tube", "stenosis_50", "stenosis_75", "bifurcation", "multi_bifurcation",
                             "aneurysm_saccular", "aneurysm_fusiform", "liver_tree"}) {
      const std::string path = std::string(src) + "/phantoms/" + name + ".json";
      std::ifstream in(path, std::ios::binary);
      QVERIFY2(in, path.c_str());
      std::stringstream text;
      text << in.rdbuf();
      const Scenario preset = scenario_preset(name);
      QVERIFY2(text.str() == scenario_to_json_text(preset), name);
      const Scenario loaded = load_scenario(path);
      QCOMPARE(scenario_to_json_text(loaded), text.str());
      QVERIFY(loaded.phantom.tree == preset.phantom.tree);
      QVERIFY(!loaded.description.empty());
    }
  }

  void stenosisAndAneurysmShapes() {
    auto s = spec_of("stenosis", 2);
    s.stenosis_degree_percent = 75;
    double rmin = generate_vessel_tree(s).min_radius_m();
    QVERIFY(std::abs(rmin / (0.25 * s.radius_m) - 1) < 1e-9);
    s.generator = "aneurysm_fusiform";
    const auto t = generate_vessel_tree(s);
    double rmax = 0;
    for (double r : t.segments[0].radius_m) rmax = std::max(rmax, r);
    QVERIFY(std::abs(rmax / s.aneurysm_radius_m - 1) < 1e-9);
    s.generator = "aneurysm_saccular";
    QCOMPARE(static_cast<int>(generate_vessel_tree(s).sacs.size()), 1);
  }

  void badTreesAreRefused() {
    VesselTree t = generate_vessel_tree(spec_of("bifurcation", 2));
    VesselTree bad = t;
    bad.segments[1].radius_m[0] = 0;
    QVERIFY(input_error([&] { validate_vessel_tree(bad, "t"); }).contains("must be > 0"));
    bad = t;
    bad.segments[1].radius_m = {t.segments[0].radius_m[0] * 1.2, t.segments[0].radius_m[0] * 1.2};
    QVERIFY(input_error([&] { validate_vessel_tree(bad, "t"); }).contains("wider than its parent"));
    bad = t;
    bad.segments[1].parent = -1;
    bad.segments[0].children = {2};
    QVERIFY(input_error([&] { validate_vessel_tree(bad, "t"); }).contains("disconnected"));
    VesselTreeSpec s;
    s.radius_m = -1;
    QVERIFY(input_error([&] { generate_vessel_tree(s); }).contains("radius_m = -1 is out of range"));
    QVERIFY(input_error([] { vessel_tree_from_json_text(R"({"format": "mrwb-vessel-tree"})", "x.json"); }).contains("x.json"));
  }

  // Partial volume: the lumen area of a 2-D tube slice is recovered from the fluid fractions.
  void discretisationPartialVolume() {
    VesselTreeSpec s;
    s.radius_m = 1e-3;
    s.length_m = 0.01;
    s.angle_deg = 27;
    const VesselTree t = generate_vessel_tree(s);
    const CellGrid g = grid_around_tree(t, 1e-4, 3e-4);
    const VesselCells c = discretise_vessels(t, g, "test");
    double area = 0;
    int fluid = 0, stationary = 0;
    for (std::size_t i = 0; i < g.size(); ++i) {
      area += c.fluid_fraction[i] * g.cell_m * g.cell_m;
      fluid += c.type[i] == static_cast<std::uint8_t>(CellType::Fluid);
      stationary += c.type[i] == static_cast<std::uint8_t>(CellType::Stationary);
    }
    const double exact = 2 * s.radius_m * s.length_m;  // the mid-plane section of the tube
    qInfo("tube section: %.4g m^2 vs %.4g m^2 exact; %d fluid cells", area, exact, fluid);
    QVERIFY(std::abs(area / exact - 1) < 0.01);
    QVERIFY(fluid > 0 && stationary > 0);
  }

  // discretise_vessels skips the cells a solid cannot reach, fills those it holds whole without sub-sampling and
  // splits the rows over threads; the reference here visits every cell of every solid's box, one thread, testing
  // all of its sub-samples (the plain algorithm). The two must agree bit for bit: fractions, owning segments, types.
  void discretisationEqualsEveryCellVisited_data() {
    QTest::addColumn<QString>("generator");
    QTest::addColumn<int>("dims");
    QTest::newRow("organ tree, 3-D") << "organ_tree" << 3;
    QTest::newRow("saccular aneurysm, 3-D") << "aneurysm_saccular" << 3;
    QTest::newRow("multi-bifurcation, 2-D") << "multi_bifurcation" << 2;
  }
  void discretisationEqualsEveryCellVisited() {
    QFETCH(QString, generator);
    QFETCH(int, dims);
    const VesselTree t = generate_vessel_tree(spec_of(generator.toStdString(), dims, 7));
    Vec3 lo, hi;
    t.bounds(lo, hi);
    // About 400,000 cells (several threads' rows), a cell not much smaller than the thinnest vessel.
    const double extent = dims == 3 ? std::cbrt((hi.x - lo.x) * (hi.y - lo.y) * (hi.z - lo.z) / 4e5)
                                    : std::sqrt((hi.x - lo.x) * (hi.y - lo.y) / 4e5);
    const CellGrid g = grid_around_tree(t, extent, 2 * extent);
    auto in_tissue = [&](const Vec3& p) { return p.x < 0.5 * (lo.x + hi.x); };
    const VesselCells c = discretise_vessels(t, g, "test", k_flow_memory_limit_bytes, in_tissue);

    const bool is3 = g.nz > 1;
    const int sub = 4, sub_z = is3 ? sub : 1;
    const double h = g.cell_m;
    const auto geo = detail::vessel_geometry(t);
    std::vector<std::uint64_t> mask(g.size(), 0);
    std::vector<std::int32_t> segment(g.size(), -1);
    auto visit = [&](Vec3 a, Vec3 b, int seg, auto&& inside) {
      auto span = [&](double u, double v, double o, int count, int& i0, int& i1) {
        i0 = std::max(0, static_cast<int>(std::floor((u - o) / h - 0.5)));
        i1 = std::min(count - 1, static_cast<int>(std::ceil((v - o) / h + 0.5)));
      };
      int x0, x1, y0, y1, z0 = 0, z1 = 0;
      span(a.x, b.x, g.origin_m.x, g.nx, x0, x1);
      span(a.y, b.y, g.origin_m.y, g.ny, y0, y1);
      if (is3) span(a.z, b.z, g.origin_m.z, g.nz, z0, z1);
      for (int z = z0; z <= z1; ++z)
        for (int y = y0; y <= y1; ++y)
          for (int x = x0; x <= x1; ++x) {
            const Vec3 ctr = g.centre(x, y, z);
            std::uint64_t m = 0;
            int bit = 0;
            for (int sz = 0; sz < sub_z; ++sz)
              for (int sy = 0; sy < sub; ++sy)
                for (int sx = 0; sx < sub; ++sx, ++bit) {
                  const Vec3 p{ctr.x + ((sx + 0.5) / sub - 0.5) * h, ctr.y + ((sy + 0.5) / sub - 0.5) * h,
                               is3 ? ctr.z + ((sz + 0.5) / sub - 0.5) * h : ctr.z};
                  if (inside(p)) m |= std::uint64_t{1} << bit;
                }
            const std::size_t i = g.index(x, y, z);
            if (m && (segment[i] < 0 || inside(ctr))) segment[i] = seg;
            mask[i] |= m;
          }
    };
    for (const auto& q : geo.pieces) {
      Vec3 a, b;
      detail::piece_box(q, a, b);
      visit(a, b, q.segment, [&](const Vec3& p) { return detail::hit_piece(q, p).inside; });
    }
    for (const auto& ball : geo.balls)
      visit(Vec3{ball.c.x - ball.r, ball.c.y - ball.r, ball.c.z - ball.r},
            Vec3{ball.c.x + ball.r, ball.c.y + ball.r, ball.c.z + ball.r}, ball.segment, [&](const Vec3& p) {
              const double dx = p.x - ball.c.x, dy = p.y - ball.c.y, dz = p.z - ball.c.z;
              return dx * dx + dy * dy + dz * dz <= ball.r * ball.r;
            });
    std::size_t fluid = 0, partial = 0;
    for (int z = 0; z < g.nz; ++z)
      for (int y = 0; y < g.ny; ++y)
        for (int x = 0; x < g.nx; ++x) {
          const std::size_t i = g.index(x, y, z);
          const float f = static_cast<float>(std::popcount(mask[i]) / static_cast<double>(sub * sub * sub_z));
          const CellType type =
              f >= 0.5f ? CellType::Fluid : in_tissue(g.centre(x, y, z)) ? CellType::Stationary : CellType::Background;
          if (c.fluid_fraction[i] != f || c.segment[i] != segment[i] || c.type[i] != static_cast<std::uint8_t>(type))
            QFAIL(qPrintable(QString("cell (%1, %2, %3): fraction %4 / %5, segment %6 / %7")
                                 .arg(x).arg(y).arg(z).arg(c.fluid_fraction[i]).arg(f).arg(c.segment[i]).arg(segment[i])));
          fluid += type == CellType::Fluid;
          partial += f > 0 && f < 1;
        }
    qInfo("%s: %d x %d x %d cells, %zu fluid, %zu partly fluid, all equal", qPrintable(generator), g.nx, g.ny, g.nz, fluid,
          partial);
    QVERIFY(fluid > 100 && partial > 100);
  }

  void oversizedGridsAreRefusedWithNumbers() {
    const VesselTree t = generate_vessel_tree(spec_of("straight_tube", 3));
    const CellGrid g = grid_around_tree(t, 1e-5, 0);  // ~ 8000 x 800 x 800 cells
    const QString e = input_error([&] { discretise_vessels(t, g, "phantom.tree", std::size_t{1} << 30); });
    QVERIFY2(e.contains("cells of 10 um") && e.contains("MiB"), qPrintable(e));
    std::string warned;
    const CellGrid coarse = grid_around_tree(t, 5e-3, 0);
    discretise_vessels(t, coarse, "phantom.tree", k_flow_memory_limit_bytes, {}, [&](const std::string& w) { warned = w; });
    QVERIFY(QString::fromStdString(warned).contains("larger than the smallest vessel radius"));
  }

  void scenarioWithTreeAndFlowRoundTrips() {
    for (const auto& name : scenario_preset_names()) {
      const Scenario s = scenario_preset(name);
      const std::string text = scenario_to_json_text(s);
      const Scenario r = scenario_from_json_text(text, name + ".json");
      QCOMPARE(scenario_to_json_text(r), text);
      QVERIFY(r.phantom.tree == s.phantom.tree);
      QCOMPARE(r.flow.enabled, s.flow.enabled);
    }
    // Presets without a flow section write none (the static straight vessel keeps its meaning).
    QVERIFY(scenario_to_json_text(scenario_preset("straight_vessel")).find("\"flow\"") == std::string::npos);
    const std::string head = R"({"format": "mrwb-scenario", "version": 1, )";
    QVERIFY(input_error([&] { scenario_from_json_text(head + R"("flow": {"speed": 1}})", "f.json"); }).contains("flow.speed is not a known field"));
    QVERIFY(input_error([&] { scenario_from_json_text(head + R"("phantom": {"preset": "vessel_tree", "tree": {"radius_m": 0}}})", "f.json"); })
                .contains("radius_m = 0 is out of range"));
    QVERIFY(input_error([&] { scenario_from_json_text(head + R"("phantom": {"preset": "uniform_disc"}, "flow": {}})", "f.json"); })
                .contains("flow needs a vessel"));
  }

  // The phantom of a flow preset carries lattice velocities (cells per flow step) on fluid cells only,
  // |u| <= 1, and matching the Poiseuille peak.
  void phantomCarriesLatticeVelocity() {
    Scenario s = scenario_preset("straight_tube");
    s.sequence.matrix = 64;
    const CellPhantom ph = build_phantom(s);
    QCOMPARE(ph.flow_dt_s, s.flow_time_step_s());
    double umax = 0;
    for (std::size_t i = 0; i < ph.size(); ++i) {
      const double u = std::hypot(ph.ux[i], ph.uy[i]);
      if (ph.type[i] != static_cast<std::uint8_t>(CellType::Fluid)) QCOMPARE(u, 0.0);
      umax = std::max(umax, u);
    }
    const double r = s.phantom.tree.radius_m;
    const double expect = 2 * s.flow.inlet_flow_m3_per_s / (M_PI * r * r) * s.flow_time_step_s() / ph.cell_size_m;
    qInfo("straight_tube: peak %.4g cells/step (analytic %.4g), step %.3g s", umax, expect, s.flow_time_step_s());
    QVERIFY(umax > 0.97 * expect && umax <= expect * 1.0001);
    QVERIFY(umax <= 1);
    // A flow that breaks |u| <= 1 is refused with the numbers.
    s.flow.inlet_flow_m3_per_s = 9e-4;
    s.flow.time_step_s = 1e-2;
    QVERIFY(input_error([&] { build_phantom(s); }).contains("breaks |u| <= 1"));
    // Without a flow section the phantom is static, as before.
    QVERIFY(!scenario_preset("straight_vessel").flow.enabled);
  }

  // The shipped liver_tree at matrix 32 (2 mm cells, vessels of 0.8 mm): pieces of its thinnest vessels, cut off
  // from the tree by the grid, made the divergence-free projection grow without bound, and the preset was
  // refused with a 255-digit speed and no file name. It builds now, its field balanced; a flow too fast for it
  // is refused in one readable line naming the file.
  void liverTreeBuildsAtMatrix32() {
    const char* src = std::getenv("MRWB_SOURCE_DIR");
    QVERIFY2(src, "MRWB_SOURCE_DIR not set");
    const std::string path = std::string(src) + "/phantoms/liver_tree.json";
    Scenario s = load_scenario(path);
    s.sequence.matrix = 32;
    CellPhantom ph = build_phantom(s);
    double umax = 0;
    for (std::size_t i = 0; i < ph.size(); ++i) umax = std::max<double>(umax, std::hypot(ph.ux[i], ph.uy[i]));
    const FaceFluxReport again = make_face_fluxes_divergence_free(ph);
    // The root's Poiseuille peak, which the projection holds where blood enters.
    const double r = s.phantom.tree.radius_m;
    const double peak = 2 * s.flow.inlet_flow_m3_per_s / (M_PI * r * r) * s.flow_time_step_s() / ph.cell_size_m;
    qInfo("liver_tree at matrix 32: peak %.3g cells/step (the root's %.3g), largest net outflow of a cell %.3g", umax,
          peak, again.max_divergence_before);
    QVERIFY(umax > 0.9 * peak && umax <= 1);
    // Balanced to the projection's tolerance (1e-5 of the speed it starts from) and the rounding of a float field.
    QVERIFY(again.max_divergence_before <= 2e-5 * umax);
    s.flow.inlet_flow_m3_per_s = 1e-3;
    const QString msg = input_error([&] { build_phantom(s); });
    QVERIFY2(msg.startsWith(QString::fromStdString(path + ": flow.inlet_flow_m3_per_s = 0.001")), qPrintable(msg));
    QVERIFY2(msg.contains("breaks |u| <= 1") && msg.size() < 300 && !msg.contains('\n'), qPrintable(msg));
  }

  // The .vti file: XML header naming the arrays, raw appended blocks that read back to the same values.
  void vtiWriterRoundTrip() {
    CellGrid g;
    g.nx = 5, g.ny = 4, g.nz = 3;
    g.cell_m = 2e-4;
    g.origin_m = {-1e-3, 0, 3e-4};
    VtiArray v{"velocity_m_per_s", 3, std::vector<float>(3 * g.size()), {}};
    VtiArray t{"cell_type", 1, {}, std::vector<std::uint8_t>(g.size())};
    for (std::size_t i = 0; i < v.f32.size(); ++i) v.f32[i] = 0.25f * i - 3;
    for (std::size_t i = 0; i < g.size(); ++i) t.u8[i] = i % 3;
    QTemporaryDir dir;
    const std::string path = (dir.path() + "/f.vti").toStdString();
    write_vti(path, g, {v, t});
    const std::string s = mrwb::test::read_file(path);
    QVERIFY(s.find("<VTKFile type=\"ImageData\"") != std::string::npos);
    QVERIFY(s.find("WholeExtent=\"0 4 0 3 0 2\"") != std::string::npos);
    QVERIFY(s.find("Name=\"velocity_m_per_s\" NumberOfComponents=\"3\" format=\"appended\" offset=\"0\"") != std::string::npos);
    const std::size_t start = s.find("<AppendedData encoding=\"raw\">");
    const std::size_t us = s.find('_', start) + 1;
    std::uint64_t n = 0;
    std::memcpy(&n, s.data() + us, 8);
    QCOMPARE(n, static_cast<std::uint64_t>(v.f32.size() * 4));
    std::vector<float> back(v.f32.size());
    std::memcpy(back.data(), s.data() + us + 8, n);
    QVERIFY(back == v.f32);
    const std::size_t second = us + 8 + n;
    QVERIFY(s.find("offset=\"" + std::to_string(8 + n) + "\"") != std::string::npos);
    std::memcpy(&n, s.data() + second, 8);
    QCOMPARE(n, static_cast<std::uint64_t>(g.size()));
    QVERIFY(std::memcmp(s.data() + second + 8, t.u8.data(), n) == 0);
    QVERIFY(s.find("</AppendedData>", second + 8 + n) != std::string::npos);
  }
};

QTEST_GUILESS_MAIN(TestFlowModel)
#include "test_flow_model.moc"
