// Replays inputs through a harness's LLVMFuzzerTestOneInput without a fuzzing engine (plain g++, run under ASan +
// UBSan by ctest): `<harness>_replay PATH...`, where each PATH is a file or a folder whose files are replayed in name
// order (subfolders and names starting with '.' are skipped). Prints one line per folder; exit 0 when every input
// ran (a sanitizer report or a broken invariant aborts), 2 when a PATH cannot be read.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size);

namespace {

bool replay_file(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) return false;
  std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  // A copy of exactly the input's size, so that ASan sees any read past its end.
  std::vector<uint8_t> input(bytes.begin(), bytes.end());
  LLVMFuzzerTestOneInput(input.empty() ? nullptr : input.data(), input.size());
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  namespace fs = std::filesystem;
  for (int i = 1; i < argc; ++i) {
    const fs::path path = argv[i];
    std::error_code ec;
    std::vector<fs::path> files;
    if (fs::is_directory(path, ec)) {
      for (const auto& e : fs::directory_iterator(path, ec))
        if (e.is_regular_file() && e.path().filename().string()[0] != '.') files.push_back(e.path());
      std::sort(files.begin(), files.end());
    } else if (fs::is_regular_file(path, ec)) {
      files.push_back(path);
    } else {
      std::fprintf(stderr, "replay: %s is neither a file nor a folder\n", argv[i]);
      return 2;
    }
    for (const auto& f : files) {
      if (!replay_file(f)) {
        std::fprintf(stderr, "replay: cannot read %s\n", f.c_str());
        return 2;
      }
    }
    std::printf("replayed %zu input(s) of %s\n", files.size(), argv[i]);
  }
  return 0;
}
