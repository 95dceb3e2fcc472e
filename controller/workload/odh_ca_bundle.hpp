#pragma once
// The OpenDataHub trusted CA bundle in Ray pods (spec.odhTrustedCABundle), as codeflare-sdk build_ray_cluster.py
// always adds it: two volumes from the ConfigMap odh-trusted-ca-bundle (optional, so pods start without it) and four
// mounts that put the two bundle files where OpenSSL looks for CA files on RHEL-like and Debian-like images.
#include <string_view>
#include <vector>

#include "workload/fragment.hpp"

namespace cfo::workload {

/// Names of the two volumes, and the ConfigMap both read.
inline constexpr std::string_view kOdhTrustedCaVolume = "odh-trusted-ca-cert";
inline constexpr std::string_view kOdhCaVolume = "odh-ca-cert";
inline constexpr std::string_view kOdhCaBundleConfigMap = "odh-trusted-ca-bundle";

/// The two core/v1 Volumes, in the SDK's order: odh-trusted-ca-cert (key ca-bundle.crt as odh-trusted-ca-bundle.crt),
/// then odh-ca-cert (key odh-ca-bundle.crt as odh-ca-bundle.crt); both configMap odh-trusted-ca-bundle, optional.
const std::vector<Fragment>& odh_ca_bundle_volumes();

/// The four core/v1 VolumeMounts, in the SDK's order, each mounting one file with subPath:
/// odh-trusted-ca-cert at /etc/pki/tls/certs/odh-trusted-ca-bundle.crt and /etc/ssl/certs/odh-trusted-ca-bundle.crt,
/// then odh-ca-cert at /etc/pki/tls/certs/odh-ca-bundle.crt and /etc/ssl/certs/odh-ca-bundle.crt.
const std::vector<Fragment>& odh_ca_bundle_mounts();

/// True when a user volume with this name would collide with odh_ca_bundle_volumes().
bool is_odh_ca_bundle_volume(std::string_view name);

/// True when a user mount at this path would collide with odh_ca_bundle_mounts().
bool is_odh_ca_bundle_mount_path(std::string_view mount_path);

}  // namespace cfo::workload
