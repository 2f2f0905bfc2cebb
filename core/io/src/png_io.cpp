// PNG through libpng: grey magnitude images (8/16-bit, window/level), signed error maps with a colorbar,
// and a reader (tests, viewers). Image row 0 is y = −FOV/2, so rows are flipped to show +y up.
#include <png.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string_view>

#include "mrwb/base/atomic_file.hpp"
#include "mrwb/base/errors.hpp"
#include "mrwb/io/colormap.hpp"
#include "mrwb/io/file_io.hpp"

namespace mrwb {
namespace {

using Rgb = colormap::Rgb8;

// rows: `height` rows of `row_bytes`, top row (as displayed) first.
void write_png_rows(const std::string& path, const std::vector<std::uint8_t>& rows, int w, int h, int bit_depth,
                    int color_type, const std::vector<std::pair<std::string, std::string>>& text = {}) {
  AtomicOutput out(path);
  FILE* f = std::fopen(out.temp_path().c_str(), "wb");
  if (!f) out.fail();
  png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, nullptr, nullptr, nullptr);
  png_infop info = png ? png_create_info_struct(png) : nullptr;
  if (!png || !info || setjmp(png_jmpbuf(png))) {
    const int e = errno;  // libpng fails a short fwrite: a full disk
    png_destroy_write_struct(&png, &info);
    std::fclose(f);
    errno = e;
    out.fail();
  }
  png_init_io(png, f);
  png_set_IHDR(png, info, static_cast<png_uint_32>(w), static_cast<png_uint_32>(h), bit_depth, color_type,
               PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
  std::vector<png_text> chunks(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    chunks[i] = png_text{};
    chunks[i].compression = PNG_TEXT_COMPRESSION_NONE;
    chunks[i].key = const_cast<char*>(text[i].first.c_str());
    chunks[i].text = const_cast<char*>(text[i].second.c_str());
    chunks[i].text_length = text[i].second.size();
  }
  if (!chunks.empty()) png_set_text(png, info, chunks.data(), static_cast<int>(chunks.size()));
  png_write_info(png, info);
  const std::size_t row_bytes = rows.size() / static_cast<std::size_t>(h);
  for (int y = 0; y < h; ++y) png_write_row(png, &rows[static_cast<std::size_t>(y) * row_bytes]);
  png_write_end(png, nullptr);
  png_destroy_write_struct(&png, &info);
  if (std::fclose(f) != 0) out.fail();
  out.commit();
}

// 3x5 pixel glyphs for colorbar labels: rows top to bottom, 3 bits each (MSB left).
const std::uint8_t* glyph(char c) {
  static const std::uint8_t digits[10][5] = {{7, 5, 5, 5, 7}, {2, 6, 2, 2, 7}, {7, 1, 7, 4, 7}, {7, 1, 7, 1, 7},
                                             {5, 5, 7, 1, 1}, {7, 4, 7, 1, 7}, {7, 4, 7, 5, 7}, {7, 1, 1, 1, 1},
                                             {7, 5, 7, 5, 7}, {7, 5, 7, 1, 7}};
  static const std::uint8_t dot[5] = {0, 0, 0, 0, 2}, minus[5] = {0, 0, 7, 0, 0}, plus[5] = {0, 2, 7, 2, 0},
                            e[5] = {0, 7, 7, 4, 7}, blank[5] = {0, 0, 0, 0, 0};
  if (c >= '0' && c <= '9') return digits[c - '0'];
  if (c == '.') return dot;
  if (c == '-') return minus;
  if (c == '+') return plus;
  if (c == 'e') return e;
  return blank;
}

// An RGB canvas addressed as displayed (row 0 on top).
struct Canvas {
  int w, h;
  std::vector<Rgb> px;
  Canvas(int w_, int h_) : w(w_), h(h_), px(static_cast<std::size_t>(w_) * h_, Rgb{255, 255, 255}) {}
  void set(int x, int row, Rgb c) {
    if (x >= 0 && x < w && row >= 0 && row < h) px[static_cast<std::size_t>(row) * w + x] = c;
  }
  void text(int x, int row, const std::string& s, int scale) {
    for (char ch : s) {
      const std::uint8_t* g = glyph(ch);
      for (int gy = 0; gy < 5; ++gy)
        for (int gx = 0; gx < 3; ++gx)
          if (g[gy] & (4 >> gx))
            for (int sy = 0; sy < scale; ++sy)
              for (int sx = 0; sx < scale; ++sx) set(x + gx * scale + sx, row + gy * scale + sy, Rgb{0, 0, 0});
      x += 4 * scale;
    }
  }
  std::vector<std::uint8_t> bytes() const {
    std::vector<std::uint8_t> b(px.size() * 3);
    for (std::size_t i = 0; i < px.size(); ++i) {
      b[3 * i] = px[i].r;
      b[3 * i + 1] = px[i].g;
      b[3 * i + 2] = px[i].b;
    }
    return b;
  }
};

std::string label(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2g", v);
  return buf;
}

}  // namespace

void write_png_magnitude(const std::string& path, const std::vector<float>& magnitude, int nx, int ny, float lo, float hi,
                         int bit_depth) {
  if (nx <= 0 || ny <= 0 || magnitude.size() != static_cast<std::size_t>(nx) * ny)
    throw InputError(path + ": image size mismatch");
  if (bit_depth != 8 && bit_depth != 16) throw InputError(path + ": PNG bit depth " + std::to_string(bit_depth) + " (allowed: 8, 16)");
  if (!(hi > lo)) {
    lo = 0;
    hi = magnitude.empty() ? 1.f : *std::max_element(magnitude.begin(), magnitude.end());
    if (!(hi > 0)) hi = 1;
  }
  const int bytes = bit_depth / 8;
  const double top = bit_depth == 8 ? 255.0 : 65535.0;
  std::vector<std::uint8_t> rows(static_cast<std::size_t>(nx) * ny * bytes);
  for (int row = 0; row < ny; ++row) {
    const int y = ny - 1 - row;
    for (int x = 0; x < nx; ++x) {
      const double t = std::clamp((magnitude[static_cast<std::size_t>(y) * nx + x] - lo) / static_cast<double>(hi - lo), 0.0, 1.0);
      const auto v = static_cast<unsigned>(std::lround(top * (std::isfinite(t) ? t : 0.0)));
      std::uint8_t* p = &rows[(static_cast<std::size_t>(row) * nx + x) * bytes];
      if (bytes == 1) {
        p[0] = static_cast<std::uint8_t>(v);
      } else {  // PNG samples are big-endian
        p[0] = static_cast<std::uint8_t>(v >> 8);
        p[1] = static_cast<std::uint8_t>(v & 0xff);
      }
    }
  }
  write_png_rows(path, rows, nx, ny, bit_depth, PNG_COLOR_TYPE_GRAY,
                 {{"mrwb:window_lo", std::to_string(lo)}, {"mrwb:window_hi", std::to_string(hi)}});
}

void write_png_error_map(const std::string& path, const std::vector<float>& error, int nx, int ny, float max_abs) {
  if (nx <= 0 || ny <= 0 || error.size() != static_cast<std::size_t>(nx) * ny)
    throw InputError(path + ": error map size mismatch");
  if (!(max_abs > 0)) {
    max_abs = 0;
    for (float e : error)
      if (std::isfinite(e)) max_abs = std::max(max_abs, std::abs(e));
    if (!(max_abs > 0)) max_abs = 1;
  }
  // The map, a gap, the colorbar (−max_abs at the bottom, +max_abs at the top) with ticks, and labels.
  const int scale = ny >= 96 ? 2 : 1;
  const int gap = 4, bar = std::max(8, nx / 16), tick = 3;
  const std::string labels[3] = {label(max_abs), "0", label(-max_abs)};
  int label_chars = 0;
  for (const auto& l : labels) label_chars = std::max<int>(label_chars, static_cast<int>(l.size()));
  const int label_x = nx + gap + bar + tick + 2;
  Canvas cv(label_x + label_chars * 4 * scale + 2, ny);
  for (int row = 0; row < ny; ++row) {
    const int y = ny - 1 - row;
    for (int x = 0; x < nx; ++x) {
      const float e = error[static_cast<std::size_t>(y) * nx + x];
      cv.set(x, row, colormap::cool_warm_table(0.5 + 0.5 * (std::isfinite(e) ? e : 0.f) / max_abs));
    }
    const Rgb c = colormap::cool_warm_table(ny > 1 ? static_cast<double>(y) / (ny - 1) : 0.5);
    for (int x = nx + gap; x < nx + gap + bar; ++x) cv.set(x, row, c);
  }
  const int tick_rows[3] = {0, (ny - 1) / 2, ny - 1};
  for (int i = 0; i < 3; ++i) {
    for (int x = nx + gap + bar; x < nx + gap + bar + tick; ++x) cv.set(x, tick_rows[i], Rgb{0, 0, 0});
    const int text_row = std::clamp(tick_rows[i] - 5 * scale / 2, 0, std::max(0, ny - 5 * scale));
    cv.text(label_x, text_row, labels[i], scale);
  }
  write_png_rows(path, cv.bytes(), cv.w, cv.h, 8, PNG_COLOR_TYPE_RGB,
                 {{"mrwb:error_max_abs", std::to_string(max_abs)}, {"mrwb:colormap", "Moreland cool-warm"}});
}

namespace {

// Decoding limits, checked before libpng allocates: the sizes libpng accepts from a header, one ancillary
// chunk (text: the writers' few short keys), and the decoded samples (2^26: 256 MiB as `unsigned`).
constexpr png_uint_32 k_png_max_side = 1u << 15;
constexpr png_alloc_size_t k_png_max_chunk_bytes = 1u << 20;
constexpr std::size_t k_png_max_samples = std::size_t{1} << 26;

// A chunk type as it may appear in a message: letters as they are, any other byte as [XX].
std::string printable_chunk_type(std::string_view t) {
  std::string out;
  for (const char c : t) {
    if (std::isalpha(static_cast<unsigned char>(c))) {
      out += c;
    } else {
      char hex[8];
      std::snprintf(hex, sizeof hex, "[%02X]", static_cast<unsigned char>(c));
      out += hex;
    }
  }
  return out;
}

// What the decoding fills: it lives in the caller, so that nothing the decoding changes between setjmp and
// a longjmp is one of its own locals (their values would be indeterminate, their destructors skipped).
struct PngDecoding {
  PngPixels out;
  std::vector<png_byte> rows;  // the pixels as decoded, row after row
  std::vector<png_bytep> row_ptrs;
  char error[160] = "";  // libpng's text (its default handlers print to stderr) or our own
  std::string_view file;  // the bytes after the signature, not yet handed to libpng
};
extern "C" void png_keep_error(png_structp png, png_const_charp msg) {
  auto* d = static_cast<PngDecoding*>(png_get_error_ptr(png));
  std::snprintf(d->error, sizeof d->error, "%s", msg);
  png_longjmp(png, 1);
}
extern "C" void png_drop_warning(png_structp, png_const_charp) {}
extern "C" void png_read_from_memory(png_structp png, png_bytep to, png_size_t n) {
  auto* d = static_cast<PngDecoding*>(png_get_io_ptr(png));
  if (n > d->file.size()) png_error(png, "the file ends inside a chunk");
  std::memcpy(to, d->file.data(), n);
  d->file.remove_prefix(n);
}

// Every chunk must lie inside the file: libpng allocates what a chunk header states before it reads the
// chunk (a text chunk claiming 1.4 GB in a 300-byte file), so a truncated or damaged length is refused
// here first. `chunks`: the file after its 8-byte signature. Returns "" or what is wrong.
std::string check_png_chunks(std::string_view chunks) {
  std::size_t at = 8;
  while (chunks.size() >= 12) {
    const auto* b = reinterpret_cast<const unsigned char*>(chunks.data());
    const std::size_t length = std::size_t{b[0]} << 24 | std::size_t{b[1]} << 16 | std::size_t{b[2]} << 8 | b[3];
    const std::string type = printable_chunk_type(chunks.substr(4, 4));
    if (length > chunks.size() - 12)
      return "chunk " + type + " at byte " + std::to_string(at) + " states " + std::to_string(length) +
             " bytes, the file holds " + std::to_string(chunks.size() - 12) + " after its header (truncated or damaged)";
    if (type == "IEND") return "";
    chunks.remove_prefix(12 + length);
    at += 12 + length;
  }
  return "the file ends before its IEND chunk (truncated)";
}

// false: d.error says what stopped it.
bool decode_png(PngDecoding& d) {
  png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &d, png_keep_error, png_drop_warning);
  png_infop info = png ? png_create_info_struct(png) : nullptr;
  if (!png || !info || setjmp(png_jmpbuf(png))) {
    png_destroy_read_struct(&png, &info, nullptr);
    if (!d.error[0]) std::snprintf(d.error, sizeof d.error, "libpng cannot start");
    return false;
  }
  png_set_read_fn(png, &d, png_read_from_memory);
  png_set_sig_bytes(png, 8);
  png_set_user_limits(png, k_png_max_side, k_png_max_side);
  png_set_chunk_malloc_max(png, k_png_max_chunk_bytes);
  png_read_info(png, info);
  png_set_expand(png);   // palette and low-bit grey to 8 bits, tRNS to alpha (as PNG_TRANSFORM_EXPAND)
  png_set_packing(png);  // as PNG_TRANSFORM_PACKING
  png_set_interlace_handling(png);  // Adam7 passes combined, as png_read_png does
  png_read_update_info(png, info);
  PngPixels& out = d.out;
  out.width = static_cast<int>(png_get_image_width(png, info));
  out.height = static_cast<int>(png_get_image_height(png, info));
  out.channels = png_get_channels(png, info);
  out.bit_depth = png_get_bit_depth(png, info);
  const std::size_t row_bytes = png_get_rowbytes(png, info);
  const std::size_t samples = static_cast<std::size_t>(out.width) * out.height * out.channels;
  if (samples > k_png_max_samples) {
    std::snprintf(d.error, sizeof d.error, "%dx%d pixels of %d channels need %zu MiB (allowed: at most %zu MiB)",
                  out.width, out.height, out.channels, samples * sizeof(unsigned) >> 20,
                  k_png_max_samples * sizeof(unsigned) >> 20);
    png_longjmp(png, 1);
  }
  d.rows.assign(row_bytes * static_cast<std::size_t>(out.height), 0);
  d.row_ptrs.resize(static_cast<std::size_t>(out.height));
  for (std::size_t y = 0; y < d.row_ptrs.size(); ++y) d.row_ptrs[y] = d.rows.data() + y * row_bytes;
  png_read_image(png, d.row_ptrs.data());
  png_read_end(png, info);  // text after the image data too
  png_textp text = nullptr;
  const int n_text = png_get_text(png, info, &text, nullptr);
  for (int i = 0; i < n_text; ++i) out.text.emplace_back(text[i].key, text[i].text ? text[i].text : "");
  png_destroy_read_struct(&png, &info, nullptr);
  return true;
}

}  // namespace

PngPixels read_png(const std::string& path) {
  std::error_code ec;
  const auto size = std::filesystem::file_size(path, ec);
  std::ifstream f(path, std::ios::binary);
  if (ec || !f) throw InputError(path + ": no such file");
  std::string bytes(static_cast<std::size_t>(size), '\0');
  if (!f.read(bytes.data(), static_cast<std::streamsize>(size))) throw InputError(path + ": read failed");
  if (bytes.size() < 8 || png_sig_cmp(reinterpret_cast<png_const_bytep>(bytes.data()), 0, 8) != 0)
    throw InputError(path + ": not a PNG file");
  PngDecoding d;
  d.file = std::string_view(bytes).substr(8);
  if (const std::string bad = check_png_chunks(d.file); !bad.empty()) throw InputError(path + ": damaged PNG file (" + bad + ")");
  if (!decode_png(d)) throw InputError(path + ": damaged PNG file (" + d.error + ")");
  PngPixels& out = d.out;
  const int sample_bytes = out.bit_depth == 16 ? 2 : 1;
  const std::size_t row_bytes = d.rows.size() / static_cast<std::size_t>(out.height);
  out.samples.resize(static_cast<std::size_t>(out.width) * out.height * out.channels);
  for (int y = 0; y < out.height; ++y)
    for (int i = 0; i < out.width * out.channels; ++i) {
      const png_byte* p = d.rows.data() + y * row_bytes + static_cast<std::size_t>(i) * sample_bytes;
      out.samples[static_cast<std::size_t>(y) * out.width * out.channels + i] = sample_bytes == 2 ? (p[0] << 8 | p[1]) : p[0];
    }
  return std::move(out);
}

void write_image(const std::string& path, const Image2D& image, const PngOptions& png) {
  const std::string ext = std::filesystem::path(path).extension().string();
  if (ext == ".h5") return write_image_ismrmrd(path, image);
  if (ext == ".png") {
    if (png.window > 0)
      return write_png_window_level(path, image.magnitude(), image.nx, image.ny, png.level, png.window, png.bit_depth);
    return write_png_magnitude(path, image.magnitude(), image.nx, image.ny, 0, 0, png.bit_depth);
  }
  if (ext == ".cfl" || ext == ".hdr") return write_image_cfl(path, image);
  if (ext == ".nii") return write_nifti(path, image);
  throw InputError(path + ": unknown image format '" + ext + "' (allowed: .h5, .cfl, .nii, .png)");
}

Image2D read_image(const std::string& path) {
  const std::string ext = std::filesystem::path(path).extension().string();
  if (ext == ".h5") return read_image_ismrmrd(path);
  if (ext == ".cfl" || ext == ".hdr") return read_image_cfl(path);
  if (ext == ".nii") return read_nifti(path);
  throw InputError(path + ": unknown image format '" + ext + "' (allowed: .h5, .cfl, .nii)");
}

}  // namespace mrwb
