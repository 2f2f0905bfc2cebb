#include "mrwb/io/vti_writer.hpp"

#include <bit>
#include <cmath>
#include <cstring>
#include <fstream>
#include <sstream>

#include "mrwb/base/atomic_file.hpp"
#include "mrwb/base/errors.hpp"
#include "mrwb/flow/flow.hpp"

namespace mrwb {

static_assert(std::endian::native == std::endian::little, "the .vti writer declares LittleEndian");

void write_vti(const std::string& path, const CellGrid& g, const std::vector<VtiArray>& arrays) {
  require_output_folder(path);
  std::ostringstream xml;
  xml.precision(17);
  const std::string extent = "0 " + std::to_string(g.nx - 1) + " 0 " + std::to_string(g.ny - 1) + " 0 " + std::to_string(g.nz - 1);
  xml << "<?xml version=\"1.0\"?>\n"
      << "<VTKFile type=\"ImageData\" version=\"1.0\" byte_order=\"LittleEndian\" header_type=\"UInt64\">\n"
      << "  <ImageData WholeExtent=\"" << extent << "\" Origin=\"" << g.origin_m.x << " " << g.origin_m.y << " "
      << g.origin_m.z << "\" Spacing=\"" << g.cell_m << " " << g.cell_m << " " << g.cell_m << "\">\n"
      << "    <Piece Extent=\"" << extent << "\">\n      <PointData>\n";
  std::uint64_t offset = 0;
  for (const auto& a : arrays) {
    const bool is_float = !a.f32.empty();
    const std::size_t count = is_float ? a.f32.size() : a.u8.size();
    if (count != g.size() * static_cast<std::size_t>(a.components))
      throw std::logic_error("write_vti: array " + a.name + " has " + std::to_string(count) + " values for " +
                             std::to_string(g.size()) + " points x " + std::to_string(a.components));
    xml << "        <DataArray type=\"" << (is_float ? "Float32" : "UInt8") << "\" Name=\"" << a.name
        << "\" NumberOfComponents=\"" << a.components << "\" format=\"appended\" offset=\"" << offset << "\"/>\n";
    offset += sizeof(std::uint64_t) + count * (is_float ? sizeof(float) : 1);
  }
  xml << "      </PointData>\n    </Piece>\n  </ImageData>\n  <AppendedData encoding=\"raw\">\n   _";

  AtomicOutput out(path);
  {
    std::ofstream f(out.temp_path(), std::ios::binary);
    if (!f) out.fail();
    f << xml.str();
    for (const auto& a : arrays) {
      const bool is_float = !a.f32.empty();
      const std::uint64_t bytes = is_float ? a.f32.size() * sizeof(float) : a.u8.size();
      f.write(reinterpret_cast<const char*>(&bytes), sizeof bytes);
      if (is_float)
        f.write(reinterpret_cast<const char*>(a.f32.data()), static_cast<std::streamsize>(bytes));
      else
        f.write(reinterpret_cast<const char*>(a.u8.data()), static_cast<std::streamsize>(bytes));
    }
    f << "\n  </AppendedData>\n</VTKFile>\n";
    if (!f.flush()) out.fail();
  }
  out.commit();
}

void write_flow_vti(const std::string& path, const FlowField& field) {
  const std::size_t n = field.grid.size();
  VtiArray vel{"velocity_m_per_s", 3, std::vector<float>(3 * n), {}};
  VtiArray speed{"speed_m_per_s", 1, std::vector<float>(n), {}};
  for (std::size_t i = 0; i < n; ++i) {
    vel.f32[3 * i] = field.ux_m_per_s[i];
    vel.f32[3 * i + 1] = field.uy_m_per_s[i];
    vel.f32[3 * i + 2] = field.uz_m_per_s[i];
    speed.f32[i] = std::hypot(field.ux_m_per_s[i], field.uy_m_per_s[i], field.uz_m_per_s[i]);
  }
  VtiArray frac{"fluid_fraction", 1, field.fluid_fraction, {}};
  VtiArray type{"cell_type", 1, {}, field.type};
  write_vti(path, field.grid, {vel, speed, frac, type});
}

}  // namespace mrwb
