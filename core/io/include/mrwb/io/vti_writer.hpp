#pragma once
// VTK XML ImageData (.vti) writer in plain C++ (core does not link VTK): point data at the cell
// centres, raw little-endian binary in an <AppendedData> block with UInt64 size headers; ParaView and
// VTK's vtkXMLImageDataReader open it. Written to a temporary file, then renamed.
#include <cstdint>
#include <string>
#include <vector>

#include "mrwb/phantom/phantom_discretise.hpp"

namespace mrwb {

struct VtiArray {
  std::string name;
  int components = 1;
  std::vector<float> f32;         // either float data ...
  std::vector<std::uint8_t> u8;   // ... or bytes (exactly one is non-empty)
};

void write_vti(const std::string& path, const CellGrid& grid, const std::vector<VtiArray>& arrays);

struct FlowField;
// velocity_m_per_s (3 components), speed_m_per_s, fluid_fraction, cell_type.
void write_flow_vti(const std::string& path, const FlowField& field);

}  // namespace mrwb
