// core/v1 Pod validation, volumes (kubernetes pkg/apis/core/validation/validation.go at 000f26050b9b, v1.33):
// ValidateVolumes, validateVolumeSource and the validator of every volume source a Pod may use, including projected
// volumes (validateProjectionSources), downward API files, and generic ephemeral volumes
// (ValidatePersistentVolumeClaimTemplate -> ValidateTemplateObjectMeta, ValidatePersistentVolumeClaimSpec).
// A volume with no source is defaulted to an emptyDir by the apiserver, so "must specify a volume type" never fires.
// Not ported: image volumes and clusterTrustBundle projections (ImageVolume and ClusterTrustBundleProjection are off
// by default at this version; their fields are then dropped), see validation/README.md.
#include <cctype>

#include "core/names.hpp"
#include "validation/rules/core_pod.hpp"
#include "validation/rules/rule_util.hpp"

namespace cfo::validation::rules::pod {

namespace {

/// A `required` string field: reports `rule` at path.key when empty or absent.
bool required(const json::Value& o, const char* key, const std::string& path, std::string_view rule, const Sink& sink) {
  if (!str(o, key).empty()) return true;
  sink.error(path + "." + key, rule, kSource, std::string(key) + " is required");
  return false;
}

bool has_backstep(const std::string& p) {
  std::size_t i = 0;
  while (i <= p.size()) {
    std::size_t j = p.find('/', i);
    if (j == std::string::npos) j = p.size();
    if (p.substr(i, j - i) == "..") return true;
    i = j + 1;
  }
  return false;
}

/// A file mode 0..0777 (fileModeErrorMsg).
void file_mode(const json::Value& o, const char* key, const std::string& path, std::string_view rule,
               const Sink& sink) {
  if (auto m = as_int(member(o, key)); m && (*m < 0 || *m > 0777))
    sink.error(path + "." + key, rule, kSource,
               "must be a file mode between 0 and 0777 (octal), found " + std::to_string(*m));
}

// core/v1 ValidateLocalNonReservedPath: relative, without '..' elements, not starting with '..'.
void ValidateLocalNonReservedPath(const std::string& p, const std::string& path, std::string_view rule,
                                  const Sink& sink) {
  auto msgs = local_descending_path(p);
  if (p.starts_with("..") && !p.starts_with("../")) msgs.emplace_back("must not start with '..'");
  if (!msgs.empty()) sink.error(path, rule, kSource, "path " + dq(p) + " " + joined(msgs));
}

// core/v1 validateKeyToPath: a key, a local path, a file mode.
void validateKeyToPath(const json::Value& kp, const std::string& path, const Sink& sink) {
  required(kp, "key", path, "validateKeyToPath", sink);
  if (required(kp, "path", path, "validateKeyToPath", sink))
    ValidateLocalNonReservedPath(str(kp, "path"), path + ".path", "validateKeyToPath", sink);
  file_mode(kp, "mode", path, "validateKeyToPath", sink);
}

// core/v1 validateDownwardAPIVolumeFile: a local path; exactly one of fieldRef (volume field paths) and
// resourceFieldRef (with containerName); a file mode.
void validateDownwardAPIVolumeFile(const json::Value& f, const std::string& path, const Sink& sink) {
  if (required(f, "path", path, "validateDownwardAPIVolumeFile", sink))
    ValidateLocalNonReservedPath(str(f, "path"), path + ".path", "validateDownwardAPIVolumeFile", sink);
  const json::Value* field = object_at(f, "fieldRef");
  const json::Value* res = object_at(f, "resourceFieldRef");
  if (field) {
    validateObjectFieldSelector(*field, true, path + ".fieldRef", sink);
    if (res)
      sink.error(path, "validateDownwardAPIVolumeFile", kSource, "fieldRef and resourceFieldRef exclude each other");
  } else if (res) {
    validateContainerResourceFieldSelector(*res, true, path + ".resourceFieldRef", sink);
  } else {
    sink.error(path, "validateDownwardAPIVolumeFile", kSource, "one of fieldRef and resourceFieldRef is required");
  }
  file_mode(f, "mode", path, "validateDownwardAPIVolumeFile", sink);
}

// ---- one validator per volume source -----------------------------------------------------------------------------

// core/v1 validateHostPathVolumeSource: a path without '..' and a known type.
void validateHostPathVolumeSource(const json::Value& s, const std::string& p, const Sink& sink) {
  if (!required(s, "path", p, "validateHostPathVolumeSource", sink)) return;
  if (has_backstep(str(s, "path")))
    sink.error(p + ".path", "validateHostPathVolumeSource", kSource, "path must not contain '..'");
  static const std::set<std::string, std::less<>> kTypes = {
      "", "DirectoryOrCreate", "Directory", "FileOrCreate", "File", "Socket", "CharDevice", "BlockDevice"};
  if (auto t = string_at(s, "type"); t && !kTypes.contains(*t))
    sink.error(p + ".type", "validateHostPathVolumeSource", kSource,
               "type " + dq(*t) +
                   " is not a hostPath type (DirectoryOrCreate, Directory, FileOrCreate, File, Socket, "
                   "CharDevice, BlockDevice)");
}

// core/v1 validateGitRepoVolumeSource: a repository and a relative directory without '..'.
void validateGitRepoVolumeSource(const json::Value& s, const std::string& p, const Sink& sink) {
  required(s, "repository", p, "validateGitRepoVolumeSource", sink);
  if (auto msgs = local_descending_path(str(s, "directory")); !msgs.empty())
    sink.error(p + ".directory", "validateGitRepoVolumeSource", kSource, "directory " + joined(msgs));
}

// core/v1 validateGCEPersistentDiskVolumeSource / validateAWSElasticBlockStoreVolumeSource: an id and a partition
// 0..255.
void validateDiskVolumeSource(const json::Value& s, const char* id, std::string_view rule, const std::string& p,
                              const Sink& sink) {
  required(s, id, p, rule, sink);
  if (auto n = as_int(member(s, "partition")); n && (*n < 0 || *n > 255))
    sink.error(p + ".partition", rule, kSource, "partition must be between 1 and 255, inclusive");
}

// core/v1 validateSecretVolumeSource: a secretName, a default mode and valid items.
void validateSecretVolumeSource(const json::Value& s, const std::string& p, const Sink& sink) {
  required(s, "secretName", p, "validateSecretVolumeSource", sink);
  file_mode(s, "defaultMode", p, "validateSecretVolumeSource", sink);
  each(s, "items", p + ".items",
       [&](const json::Value& kp, rapidjson::SizeType, const std::string& at) { validateKeyToPath(kp, at, sink); });
}

// core/v1 validateConfigMapVolumeSource: a name, a default mode and valid items.
void validateConfigMapVolumeSource(const json::Value& s, const std::string& p, const Sink& sink) {
  required(s, "name", p, "validateConfigMapVolumeSource", sink);
  file_mode(s, "defaultMode", p, "validateConfigMapVolumeSource", sink);
  each(s, "items", p + ".items",
       [&](const json::Value& kp, rapidjson::SizeType, const std::string& at) { validateKeyToPath(kp, at, sink); });
}

// core/v1 validateNFSVolumeSource: a server and an absolute path.
void validateNFSVolumeSource(const json::Value& s, const std::string& p, const Sink& sink) {
  required(s, "server", p, "validateNFSVolumeSource", sink);
  required(s, "path", p, "validateNFSVolumeSource", sink);
  if (std::string path = str(s, "path"); path.empty() || path.front() != '/')
    sink.error(p + ".path", "validateNFSVolumeSource", kSource, "path must be an absolute path");
}

bool iqn_like(const std::string& v) {
  auto alnum = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; };
  if (v.starts_with("iqn")) {
    // iqn.YYYY-MM.<naming authority>:<unique name>
    if (v.size() < 12 || v[3] != '.' || v[8] != '-' || v[11] != '.') return false;
    for (int i : {4, 5, 6, 7, 9, 10})
      if (!std::isdigit(static_cast<unsigned char>(v[i]))) return false;
    auto colon = v.find(':', 12);
    if (colon == std::string::npos || colon == 12 || colon + 1 >= v.size()) return false;
    for (std::size_t i = 12; i < colon; ++i)
      if (!alnum(v[i]) && v[i] != '-' && v[i] != '.') return false;
    for (std::size_t i = colon + 1; i < v.size(); ++i)
      if (std::string_view(",;*&$| \t\n").find(v[i]) != std::string_view::npos) return false;
    return true;
  }
  auto hex = [&](std::size_t n) {
    if (v.size() != 4 + n) return false;
    for (std::size_t i = 4; i < v.size(); ++i)
      if (!alnum(v[i])) return false;
    return true;
  };
  if (v.starts_with("eui")) return hex(16);
  if (v.starts_with("naa")) return hex(32);
  return false;
}

// core/v1 validateISCSIVolumeSource: a targetPortal, an iqn/eui/naa name, lun 0..255, a secretRef with CHAP
// authentication, a well-formed initiatorName (and then a short <volume>:<portal>).
void validateISCSIVolumeSource(const json::Value& s, const std::string& vol_name, const std::string& p,
                               const Sink& sink) {
  required(s, "targetPortal", p, "validateISCSIVolumeSource", sink);
  if (required(s, "iqn", p, "validateISCSIVolumeSource", sink) && !iqn_like(str(s, "iqn")))
    sink.error(p + ".iqn", "validateISCSIVolumeSource", kSource, "iqn must be a valid iqn, eui or naa name");
  if (auto lun = as_int(member(s, "lun")); lun && (*lun < 0 || *lun > 255))
    sink.error(p + ".lun", "validateISCSIVolumeSource", kSource, "lun must be between 0 and 255, inclusive");
  if ((true_at(s, "chapAuthDiscovery") || true_at(s, "chapAuthSession")) && !has(s, "secretRef"))
    sink.error(p + ".secretRef", "validateISCSIVolumeSource", kSource, "CHAP authentication needs a secretRef");
  if (auto init = string_at(s, "initiatorName")) {
    if (!iqn_like(*init))
      sink.error(p + ".initiatorName", "validateISCSIVolumeSource", kSource,
                 "initiatorName must be a valid iqn, eui or naa name");
    if ((vol_name + ":" + str(s, "targetPortal")).size() > 64)
      sink.error(p + ".targetPortal", "validateISCSIVolumeSource", kSource,
                 "<volume name>:<targetPortal> must be under 64 characters when initiatorName is set");
  }
}

// core/v1 validateGlusterfsVolumeSource: endpoints and path.
void validateGlusterfsVolumeSource(const json::Value& s, const std::string& p, const Sink& sink) {
  required(s, "endpoints", p, "validateGlusterfsVolumeSource", sink);
  required(s, "path", p, "validateGlusterfsVolumeSource", sink);
}

// core/v1 validateFlockerVolumeSource: exactly one of datasetName and datasetUUID; no '/' in the name.
void validateFlockerVolumeSource(const json::Value& s, const std::string& p, const Sink& sink) {
  bool n = !str(s, "datasetName").empty(), u = !str(s, "datasetUUID").empty();
  if (n == u) sink.error(p, "validateFlockerVolumeSource", kSource, "set exactly one of datasetName and datasetUUID");
  if (str(s, "datasetName").find('/') != std::string::npos)
    sink.error(p + ".datasetName", "validateFlockerVolumeSource", kSource, "datasetName must not contain '/'");
}

// core/v1 validatePersistentClaimVolumeSource: a claimName.
void validatePersistentClaimVolumeSource(const json::Value& s, const std::string& p, const Sink& sink) {
  required(s, "claimName", p, "validatePersistentClaimVolumeSource", sink);
}

// core/v1 validateRBDVolumeSource: monitors and image.
void validateRBDVolumeSource(const json::Value& s, const std::string& p, const Sink& sink) {
  if (arr(s, "monitors").Empty())
    sink.error(p + ".monitors", "validateRBDVolumeSource", kSource, "monitors are required");
  required(s, "image", p, "validateRBDVolumeSource", sink);
}

// core/v1 validateCinderVolumeSource: a volumeID and a named secretRef.
void validateCinderVolumeSource(const json::Value& s, const std::string& p, const Sink& sink) {
  required(s, "volumeID", p, "validateCinderVolumeSource", sink);
  if (const json::Value* r = object_at(s, "secretRef"))
    required(*r, "name", p + ".secretRef", "validateCinderVolumeSource", sink);
}

// core/v1 validateCephFSVolumeSource: monitors.
void validateCephFSVolumeSource(const json::Value& s, const std::string& p, const Sink& sink) {
  if (arr(s, "monitors").Empty())
    sink.error(p + ".monitors", "validateCephFSVolumeSource", kSource, "monitors are required");
}

// core/v1 validateQuobyteVolumeSource: a registry of host:port pairs, a tenant of at most 64 characters, a volume.
void validateQuobyteVolumeSource(const json::Value& s, const std::string& p, const Sink& sink) {
  std::string reg = str(s, "registry");
  if (reg.empty()) {
    sink.error(p + ".registry", "validateQuobyteVolumeSource", kSource, "registry is required (host:port pairs)");
  } else if (str(s, "tenant").size() >= 65) {
    sink.error(p + ".tenant", "validateQuobyteVolumeSource", kSource, "tenant may not exceed 64 characters");
  } else {
    std::size_t i = 0;
    while (i <= reg.size()) {
      std::size_t j = reg.find(',', i);
      if (j == std::string::npos) j = reg.size();
      std::string pair = reg.substr(i, j - i);
      auto colon = pair.rfind(':');
      bool ok = colon != std::string::npos;
      if (ok && pair.front() == '[')
        ok = colon > 0 && pair[colon - 1] == ']';
      else if (ok)
        ok = pair.find(':') == colon;
      if (!ok)
        sink.error(p + ".registry", "validateQuobyteVolumeSource", kSource, "registry must hold host:port pairs");
      i = j + 1;
    }
  }
  required(s, "volume", p, "validateQuobyteVolumeSource", sink);
}

// core/v1 validateFCVolumeSource: exactly one of targetWWNs and wwids; a lun 0..255 with targetWWNs.
void validateFCVolumeSource(const json::Value& s, const std::string& p, const Sink& sink) {
  bool wwns = !arr(s, "targetWWNs").Empty(), ids = !arr(s, "wwids").Empty();
  if (!wwns && !ids) sink.error(p + ".targetWWNs", "validateFCVolumeSource", kSource, "set targetWWNs or wwids");
  if (wwns && ids)
    sink.error(p + ".targetWWNs", "validateFCVolumeSource", kSource, "targetWWNs and wwids exclude each other");
  if (wwns) {
    auto lun = as_int(member(s, "lun"));
    if (!lun)
      sink.error(p + ".lun", "validateFCVolumeSource", kSource, "lun is required with targetWWNs");
    else if (*lun < 0 || *lun > 255)
      sink.error(p + ".lun", "validateFCVolumeSource", kSource, "lun must be between 0 and 255, inclusive");
  }
}

// core/v1 validateFlexVolumeSource: a driver; option keys outside the kubernetes.io and k8s.io namespaces.
void validateFlexVolumeSource(const json::Value& s, const std::string& p, const Sink& sink) {
  required(s, "driver", p, "validateFlexVolumeSource", sink);
  if (const json::Value* o = object_at(s, "options"))
    for (auto it = o->MemberBegin(); it != o->MemberEnd(); ++it) {
      std::string k = text(it->name), ns = k.substr(0, k.find('/'));
      std::string norm = "." + ns;
      for (auto& c : norm) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      if (norm.ends_with(".kubernetes.io") || norm.ends_with(".k8s.io"))
        sink.error(key_path(p + ".options", k), "validateFlexVolumeSource", kSource,
                   "the kubernetes.io and k8s.io option namespaces are reserved");
    }
}

// core/v1 validateAzureFile: secretName and shareName.
void validateAzureFile(const json::Value& s, const std::string& p, const Sink& sink) {
  required(s, "secretName", p, "validateAzureFile", sink);
  required(s, "shareName", p, "validateAzureFile", sink);
}

// core/v1 validateAzureDisk: diskName and diskURI; cachingMode None/ReadOnly/ReadWrite; kind Shared/Dedicated/Managed
// (defaulted to Shared); a Managed disk URI starts with /subscriptions/, the others with https://.
void validateAzureDisk(const json::Value& s, const std::string& p, const Sink& sink) {
  required(s, "diskName", p, "validateAzureDisk", sink);
  required(s, "diskURI", p, "validateAzureDisk", sink);
  if (auto m = string_at(s, "cachingMode"); m && *m != "None" && *m != "ReadOnly" && *m != "ReadWrite")
    sink.error(p + ".cachingMode", "validateAzureDisk", kSource,
               "cachingMode " + dq(*m) + " is not None, ReadOnly or ReadWrite");
  std::string kind = string_at(s, "kind").value_or("Shared");
  if (kind != "Shared" && kind != "Dedicated" && kind != "Managed") {
    sink.error(p + ".kind", "validateAzureDisk", kSource, "kind " + dq(kind) + " is not Shared, Dedicated or Managed");
    return;
  }
  std::string uri = str(s, "diskURI");
  if (kind == "Managed" && !uri.starts_with("/subscriptions/"))
    sink.error(p + ".diskURI", "validateAzureDisk", kSource, "a Managed disk URI starts with /subscriptions/");
  if (kind != "Managed" && !uri.starts_with("https://"))
    sink.error(p + ".diskURI", "validateAzureDisk", kSource, "a blob disk URI starts with https://");
}

// core/v1 validateStorageOSVolumeSource: a DNS-1123 label volumeName and volumeNamespace; a named secretRef.
void validateStorageOSVolumeSource(const json::Value& s, const std::string& p, const Sink& sink) {
  if (required(s, "volumeName", p, "validateStorageOSVolumeSource", sink))
    if (auto msgs = names::dns1123_label(str(s, "volumeName")); !msgs.empty())
      sink.error(p + ".volumeName", "validateStorageOSVolumeSource", kSource, joined(msgs));
  if (!str(s, "volumeNamespace").empty())
    if (auto msgs = names::dns1123_label(str(s, "volumeNamespace")); !msgs.empty())
      sink.error(p + ".volumeNamespace", "validateStorageOSVolumeSource", kSource, joined(msgs));
  if (const json::Value* r = object_at(s, "secretRef"))
    required(*r, "name", p + ".secretRef", "validateStorageOSVolumeSource", sink);
}

// core/v1 validateScaleIOVolumeSource: gateway, system and volumeName.
void validateScaleIOVolumeSource(const json::Value& s, const std::string& p, const Sink& sink) {
  for (const char* k : {"gateway", "system", "volumeName"}) required(s, k, p, "validateScaleIOVolumeSource", sink);
}

// core/v1 validateCSIVolumeSource (ValidateCSIDriverName): a driver name of at most 63 characters that is a DNS-1123
// subdomain when lower-cased; a named, well-formed nodePublishSecretRef.
void validateCSIVolumeSource(const json::Value& s, const std::string& p, const Sink& sink) {
  std::string d = str(s, "driver");
  if (d.empty()) {
    sink.error(p + ".driver", "validateCSIVolumeSource", kSource, "driver is required");
  } else {
    if (d.size() > 63)
      sink.error(p + ".driver", "validateCSIVolumeSource", kSource, "driver may not exceed 63 characters");
    std::string lower = d;
    for (auto& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (auto msgs = names::dns1123_subdomain(lower); !msgs.empty())
      sink.error(p + ".driver", "validateCSIVolumeSource", kSource, "driver " + dq(d) + " " + joined(msgs));
  }
  if (const json::Value* r = object_at(s, "nodePublishSecretRef")) {
    std::string n = str(*r, "name");
    if (n.empty())
      sink.error(p + ".nodePublishSecretRef.name", "validateCSIVolumeSource", kSource, "name is required");
    else if (auto msgs = names::dns1123_subdomain(n); !msgs.empty())
      sink.error(p + ".nodePublishSecretRef.name", "validateCSIVolumeSource", kSource, joined(msgs));
  }
}

// core/v1 validateProjectionSources / validateProjectedVolumeSource: a default mode; one source per entry (secret,
// configMap, downwardAPI, serviceAccountToken); unique paths; a service account token of 10 minutes to 2^32 s with
// a local path.
void validateProjectedVolumeSource(const json::Value& s, const std::string& p, const Sink& sink) {
  file_mode(s, "defaultMode", p, "validateProjectedVolumeSource", sink);
  std::set<std::string> paths;
  auto add_path = [&](const std::string& path) {
    if (!path.empty() && !paths.insert(path).second)
      sink.error(p, "validateProjectionSources", kSource, "path " + dq(path) + " is projected twice");
  };
  each(s, "sources", p + ".sources", [&](const json::Value& src, rapidjson::SizeType, const std::string& sp) {
    int n = 0;
    for (const char* kind : {"secret", "configMap"}) {
      const json::Value* o = object_at(src, kind);
      if (!o) continue;
      ++n;
      required(*o, "name", sp + "." + kind, "validateProjectionSources", sink);
      each(*o, "items", sp + "." + kind + ".items",
           [&](const json::Value& kp, rapidjson::SizeType, const std::string& at) {
             validateKeyToPath(kp, at, sink);
             add_path(str(kp, "path"));
           });
    }
    if (const json::Value* o = object_at(src, "downwardAPI")) {
      ++n;
      each(*o, "items", sp + ".downwardAPI.items",
           [&](const json::Value& f, rapidjson::SizeType, const std::string& at) {
             validateDownwardAPIVolumeFile(f, at, sink);
             add_path(str(f, "path"));
           });
    }
    if (const json::Value* o = object_at(src, "serviceAccountToken")) {
      ++n;
      const std::string at = sp + ".serviceAccountToken";
      int64_t exp = as_int(member(*o, "expirationSeconds")).value_or(3600);
      if (exp < 600)
        sink.error(at + ".expirationSeconds", "validateProjectionSources", kSource,
                   "expirationSeconds may not be less than 10 minutes (600)");
      if (exp > (int64_t{1} << 32))
        sink.error(at + ".expirationSeconds", "validateProjectionSources", kSource,
                   "expirationSeconds may not exceed 2^32");
      if (str(*o, "path").empty())
        sink.error(at + ".path", "validateProjectionSources", kSource, "path is required");
      else
        ValidateLocalNonReservedPath(str(*o, "path"), at + ".path", "validateProjectionSources", sink);
    }
    if (n > 1)
      sink.error(sp, "validateProjectionSources", kSource, "a projection source may hold only one volume type");
  });
}

// core/v1 ValidatePersistentVolumeClaimTemplate (ValidateTemplateObjectMeta, ValidatePersistentVolumeClaimSpec):
// metadata holds only labels and annotations; the claim spec has access modes (ReadWriteOncePod alone), a positive
// storage request, a DNS-subdomain storage class, a Block or Filesystem volumeMode, and well-formed data sources.
void ValidatePersistentVolumeClaimTemplate(const json::Value& t, const std::string& p, const Sink& sink) {
  if (const json::Value* m = object_at(t, "metadata")) {
    if (const json::Value* labels = object_at(*m, "labels"))
      validate_label_map(*labels, p + ".metadata.labels", kMetaSource, sink);
    for (auto it = m->MemberBegin(); it != m->MemberEnd(); ++it) {
      std::string k = text(it->name);
      if (k != "labels" && k != "annotations")
        sink.error(p + ".metadata." + k, "ValidatePersistentVolumeClaimTemplate", kSource,
                   "only labels and annotations may be set in a claim template's metadata");
    }
  }
  const json::Value* spec = object_at(t, "spec");
  const std::string sp = p + ".spec";
  if (!spec) {
    sink.error(sp + ".accessModes", "ValidatePersistentVolumeClaimTemplate", kSource,
               "at least one access mode is required");
    return;
  }
  const json::Value& modes = arr(*spec, "accessModes");
  if (modes.Empty())
    sink.error(sp + ".accessModes", "ValidatePersistentVolumeClaimTemplate", kSource,
               "at least one access mode is required");
  bool rwop = false, other = false;
  for (const auto& m : modes.GetArray()) {
    std::string v = text(m);
    if (v == "ReadWriteOncePod")
      rwop = true;
    else if (v == "ReadWriteOnce" || v == "ReadOnlyMany" || v == "ReadWriteMany")
      other = true;
    else
      sink.error(sp + ".accessModes", "ValidatePersistentVolumeClaimTemplate", kSource,
                 "access mode " + dq(v) + " is not ReadWriteOnce, ReadOnlyMany, ReadWriteMany or ReadWriteOncePod");
  }
  if (rwop && other)
    sink.error(sp + ".accessModes", "ValidatePersistentVolumeClaimTemplate", kSource,
               "ReadWriteOncePod may not be combined with other access modes");
  if (const json::Value* sel = object_at(*spec, "selector")) label_selector(*sel, sp + ".selector", sink);
  const json::Value* res = object_at(*spec, "resources");
  const json::Value* req = res ? object_at(*res, "requests") : nullptr;
  const json::Value* storage = req ? member(*req, "storage") : nullptr;
  if (!storage) {
    sink.error(sp + ".resources.requests.storage", "ValidatePersistentVolumeClaimTemplate", kSource,
               "resources.requests.storage is required");
  } else if (auto q = quantity(*storage); q && q->nanos() <= 0) {
    sink.error(sp + ".resources.requests.storage", "ValidatePersistentVolumeClaimTemplate", kSource,
               "the storage request must be greater than zero");
  }
  if (auto sc = string_at(*spec, "storageClassName"); sc && !sc->empty())
    if (auto msgs = names::dns1123_subdomain(*sc); !msgs.empty())
      sink.error(sp + ".storageClassName", "ValidatePersistentVolumeClaimTemplate", kSource, joined(msgs));
  if (auto vm = string_at(*spec, "volumeMode"); vm && *vm != "Block" && *vm != "Filesystem")
    sink.error(sp + ".volumeMode", "ValidatePersistentVolumeClaimTemplate", kSource,
               "volumeMode " + dq(*vm) + " is not Block or Filesystem");
  for (const char* f : {"dataSource", "dataSourceRef"}) {
    const json::Value* ds = object_at(*spec, f);
    if (!ds) continue;
    const std::string at = sp + "." + f;
    required(*ds, "name", at, "validateDataSource", sink);
    required(*ds, "kind", at, "validateDataSource", sink);
    std::string group = str(*ds, "apiGroup");
    if (group.empty() && str(*ds, "kind") != "PersistentVolumeClaim")
      sink.error(at, "validateDataSource", kSource, "kind must be PersistentVolumeClaim when apiGroup is empty");
    if (!group.empty())
      if (auto msgs = names::dns1123_subdomain(group); !msgs.empty())
        sink.error(at + ".apiGroup", "validateDataSource", kSource, joined(msgs));
    if (auto ns = string_at(*ds, "namespace"); ns && !ns->empty())
      if (auto msgs = names::dns1123_label(*ns); !msgs.empty())
        sink.error(at + ".namespace", "validateDataSource", kSource, joined(msgs));
  }
  const json::Value* ds = object_at(*spec, "dataSource");
  const json::Value* dsr = object_at(*spec, "dataSourceRef");
  if (ds && dsr) {
    if (!str(*dsr, "namespace").empty())
      sink.error(sp, "validateDataSource", kSource, "dataSource may not be set when dataSourceRef.namespace is");
    else if (str(*ds, "apiGroup") != str(*dsr, "apiGroup") || str(*ds, "kind") != str(*dsr, "kind") ||
             str(*ds, "name") != str(*dsr, "name"))
      sink.error(sp, "validateDataSource", kSource, "dataSource must match dataSourceRef");
  }
}

// core/v1 validateEphemeralVolumeSource: a volumeClaimTemplate.
void validateEphemeralVolumeSource(const json::Value& s, const std::string& p, const Sink& sink) {
  const json::Value* t = object_at(s, "volumeClaimTemplate");
  if (!t) {
    sink.error(p + ".volumeClaimTemplate", "validateEphemeralVolumeSource", kSource, "volumeClaimTemplate is required");
    return;
  }
  ValidatePersistentVolumeClaimTemplate(*t, p + ".volumeClaimTemplate", sink);
}

// core/v1 validateVolumeSource: one volume type per volume, each checked by its own validator.
bool validateVolumeSource(const json::Value& v, const std::string& name, const std::string& p, const Sink& sink) {
  FieldErrors local;
  Sink s(local);
  int n = 0;
  static const char* kSources[] = {"emptyDir",
                                   "hostPath",
                                   "gitRepo",
                                   "gcePersistentDisk",
                                   "awsElasticBlockStore",
                                   "secret",
                                   "nfs",
                                   "iscsi",
                                   "glusterfs",
                                   "flocker",
                                   "persistentVolumeClaim",
                                   "rbd",
                                   "cinder",
                                   "cephfs",
                                   "quobyte",
                                   "downwardAPI",
                                   "fc",
                                   "flexVolume",
                                   "configMap",
                                   "azureFile",
                                   "vsphereVolume",
                                   "photonPersistentDisk",
                                   "portworxVolume",
                                   "azureDisk",
                                   "storageos",
                                   "projected",
                                   "scaleIO",
                                   "csi",
                                   "ephemeral",
                                   "image"};
  for (const char* kind : kSources) {
    const json::Value* src = object_at(v, kind);
    if (!src) continue;
    const std::string at = p + "." + kind;
    if (n++ > 0) {
      s.error(at, "validateVolumeSource", kSource, "may not specify more than one volume type");
      continue;
    }
    std::string_view k = kind;
    if (k == "emptyDir") {
      if (const json::Value* lim = member(*src, "sizeLimit"); lim && !lim->IsNull())
        if (auto q = quantity(*lim); q && q->nanos() < 0)
          s.error(at + ".sizeLimit", "validateVolumeSource", kSource, "sizeLimit must not be negative");
    } else if (k == "hostPath") {
      validateHostPathVolumeSource(*src, at, s);
    } else if (k == "gitRepo") {
      validateGitRepoVolumeSource(*src, at, s);
    } else if (k == "gcePersistentDisk") {
      validateDiskVolumeSource(*src, "pdName", "validateGCEPersistentDiskVolumeSource", at, s);
    } else if (k == "awsElasticBlockStore") {
      validateDiskVolumeSource(*src, "volumeID", "validateAWSElasticBlockStoreVolumeSource", at, s);
    } else if (k == "secret") {
      validateSecretVolumeSource(*src, at, s);
    } else if (k == "nfs") {
      validateNFSVolumeSource(*src, at, s);
    } else if (k == "iscsi") {
      validateISCSIVolumeSource(*src, name, at, s);
    } else if (k == "glusterfs") {
      validateGlusterfsVolumeSource(*src, at, s);
    } else if (k == "flocker") {
      validateFlockerVolumeSource(*src, at, s);
    } else if (k == "persistentVolumeClaim") {
      validatePersistentClaimVolumeSource(*src, at, s);
    } else if (k == "rbd") {
      validateRBDVolumeSource(*src, at, s);
    } else if (k == "cinder") {
      validateCinderVolumeSource(*src, at, s);
    } else if (k == "cephfs") {
      validateCephFSVolumeSource(*src, at, s);
    } else if (k == "quobyte") {
      validateQuobyteVolumeSource(*src, at, s);
    } else if (k == "downwardAPI") {
      file_mode(*src, "defaultMode", at, "validateDownwardAPIVolumeSource", s);
      each(*src, "items", at + ".items", [&](const json::Value& f, rapidjson::SizeType, const std::string& fp) {
        validateDownwardAPIVolumeFile(f, fp, s);
      });
    } else if (k == "fc") {
      validateFCVolumeSource(*src, at, s);
    } else if (k == "flexVolume") {
      validateFlexVolumeSource(*src, at, s);
    } else if (k == "configMap") {
      validateConfigMapVolumeSource(*src, at, s);
    } else if (k == "azureFile") {
      validateAzureFile(*src, at, s);
    } else if (k == "vsphereVolume") {
      required(*src, "volumePath", at, "validateVsphereVolumeSource", s);
    } else if (k == "photonPersistentDisk") {
      required(*src, "pdID", at, "validatePhotonPersistentDiskVolumeSource", s);
    } else if (k == "portworxVolume") {
      required(*src, "volumeID", at, "validatePortworxVolumeSource", s);
    } else if (k == "azureDisk") {
      validateAzureDisk(*src, at, s);
    } else if (k == "storageos") {
      validateStorageOSVolumeSource(*src, at, s);
    } else if (k == "projected") {
      validateProjectedVolumeSource(*src, at, s);
    } else if (k == "scaleIO") {
      validateScaleIOVolumeSource(*src, at, s);
    } else if (k == "csi") {
      validateCSIVolumeSource(*src, at, s);
    } else if (k == "ephemeral") {
      validateEphemeralVolumeSource(*src, at, s);
    }
  }
  bool ok = local.empty();
  sink.append(std::move(local));
  return ok;
}

}  // namespace

// core/v1 ValidateVolumes: each volume has a unique DNS-1123 label name and a valid source; only valid volumes can be
// mounted.
void ValidateVolumes(PodCtx& ctx) {
  std::set<std::string> seen;
  each(ctx.spec, "volumes", ctx.path + ".volumes",
       [&](const json::Value& v, rapidjson::SizeType, const std::string& at) {
         if (!v.IsObject()) return;
         std::string name = str(v, "name");
         bool ok = validateVolumeSource(v, name, at, ctx.sink);
         if (name.empty()) {
           ctx.sink.error(at + ".name", "ValidateVolumes", kSource, "a volume needs a name");
           ok = false;
         } else if (auto msgs = names::dns1123_label(name); !msgs.empty()) {
           ctx.sink.error(at + ".name", "ValidateVolumes", kSource, "volume name " + dq(name) + " " + joined(msgs));
           ok = false;
         }
         if (seen.contains(name)) {
           ctx.sink.error(at + ".name", "ValidateVolumes", kSource, "volume name " + dq(name) + " is used twice");
           ok = false;
         }
         if (ok) {
           seen.insert(name);
           ctx.volumes.emplace(name, &v);
         }
       });
}

}  // namespace cfo::validation::rules::pod
