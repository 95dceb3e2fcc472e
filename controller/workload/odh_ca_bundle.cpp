#include "workload/odh_ca_bundle.hpp"

#include <algorithm>
#include <array>
#include <stdexcept>
#include <string>

namespace cfo::workload {

namespace {
struct BundleFile {
  std::string_view volume;
  std::string_view key;   // key in the ConfigMap
  std::string_view file;  // file name in the volume and in the certificate folders
};
constexpr std::array<BundleFile, 2> kFiles = {{
    {kOdhTrustedCaVolume, "ca-bundle.crt", "odh-trusted-ca-bundle.crt"},
    {kOdhCaVolume, "odh-ca-bundle.crt", "odh-ca-bundle.crt"},
}};
// Where OpenSSL-based tools look for extra CA files: RHEL/UBI and Debian/Ubuntu layouts.
constexpr std::array<std::string_view, 2> kCertDirs = {"/etc/pki/tls/certs/", "/etc/ssl/certs/"};

Fragment fragment(const std::string& text) {
  auto d = json::parse(text);
  if (!d) throw std::logic_error("odh_ca_bundle: bad built-in JSON: " + d.error().message);
  return Fragment(*d);
}
}  // namespace

const std::vector<Fragment>& odh_ca_bundle_volumes() {
  static const std::vector<Fragment> volumes = [] {
    std::vector<Fragment> out;
    out.reserve(kFiles.size());
    for (const auto& f : kFiles)
      out.push_back(fragment(R"({"name": ")" + std::string(f.volume) + R"(", "configMap": {"name": ")" +
                             std::string(kOdhCaBundleConfigMap) + R"(", "items": [{"key": ")" + std::string(f.key) +
                             R"(", "path": ")" + std::string(f.file) + R"("}], "optional": true}})"));
    return out;
  }();
  return volumes;
}

const std::vector<Fragment>& odh_ca_bundle_mounts() {
  static const std::vector<Fragment> mounts = [] {
    std::vector<Fragment> out;
    for (const auto& f : kFiles)
      for (const auto& dir : kCertDirs)
        out.push_back(fragment(R"({"name": ")" + std::string(f.volume) + R"(", "mountPath": ")" + std::string(dir) +
                               std::string(f.file) + R"(", "subPath": ")" + std::string(f.file) + R"("})"));
    return out;
  }();
  return mounts;
}

bool is_odh_ca_bundle_volume(std::string_view name) {
  return std::any_of(kFiles.begin(), kFiles.end(), [&](const BundleFile& f) { return f.volume == name; });
}

bool is_odh_ca_bundle_mount_path(std::string_view mount_path) {
  for (const auto& f : kFiles)
    for (const auto& dir : kCertDirs)
      if (mount_path == std::string(dir) + std::string(f.file)) return true;
  return false;
}

}  // namespace cfo::workload
