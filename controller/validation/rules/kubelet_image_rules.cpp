// The image reference of every container of a Pod template, as the kubelet reads it before it pulls: kubernetes
// pkg/kubelet/images (image_manager.go, applyDefaultImageTag) parses it with distribution/reference
// ParseNormalizedNamed, and a reference that does not parse leaves the container waiting with InvalidImageName for
// good. The apiserver only requires a non-empty image without surrounding whitespace, so such a Pod is stored and
// never starts: a late failure.
//
// The grammar is that of github.com/distribution/reference v0.6.0 (the module Kubernetes 1.33 vendors), normalised
// as ParseNormalizedNamed does:
//   reference   = name [":" tag] ["@" digest]
//   name        = [domain "/"] path-component *("/" path-component)     (path at most 255 bytes)
//   domain      = host [":" port]; host = domain-component *("." domain-component) | "[" IPv6 "]"
//   domain-component = [a-zA-Z0-9] | [a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9]
//   path-component   = [a-z0-9]+ *(separator [a-z0-9]+); separator = "." | "_" | "__" | "-"+
//   tag         = [A-Za-z0-9_][A-Za-z0-9_.-]{0,127}
//   digest      = algorithm ":" hex; here sha256, sha384 or sha512 with 64, 96 or 128 lowercase hex digits
//                 (opencontainers/go-digest: other algorithms are unsupported, other lengths invalid)
// The first path component is the registry when it holds "." or ":", is "localhost", or holds an upper-case letter;
// otherwise the registry is docker.io. The repository path must be lower case. A bare 64-hex-digit string is refused
// (it would read as an image ID).
#include <algorithm>
#include <string>
#include <string_view>

#include "core/ascii.hpp"
#include "validation/rules/rules.hpp"

namespace cfo::validation::rules {

namespace {

constexpr std::string_view kSource =
    "k8s:kubelet images.applyDefaultImageTag -> distribution/reference@v0.6.0 ParseNormalizedNamed (InvalidImageName)";
constexpr std::size_t kMaxPathBytes = 255;
constexpr std::size_t kMaxTagBytes = 128;

bool lower_alnum(char c) { return (c >= 'a' && c <= 'z') || ascii::is_digit(c); }
bool lower_hex(char c) { return ascii::is_digit(c) || (c >= 'a' && c <= 'f'); }
bool word(char c) { return ascii::is_alnum(c) || c == '_'; }

bool domain_component(std::string_view s) {
  if (s.empty() || !ascii::is_alnum(s.front()) || !ascii::is_alnum(s.back())) return false;
  for (char c : s)
    if (!ascii::is_alnum(c) && c != '-') return false;
  return true;
}

// host [":" port]: dot-separated domain components, or an IPv6 address in brackets (hex digits and colons).
bool domain(std::string_view s) {
  if (!s.empty() && s.front() == '[') {
    const std::size_t close = s.find(']');
    if (close == std::string_view::npos || close == 1) return false;
    for (char c : s.substr(1, close - 1))
      if (!ascii::is_digit(c) && !((c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')) && c != ':') return false;
    s.remove_prefix(close + 1);
  } else {
    const std::size_t colon = s.find(':');
    const std::string_view host = s.substr(0, colon);
    s = colon == std::string_view::npos ? std::string_view() : s.substr(colon);
    for (std::size_t from = 0;;) {
      const std::size_t dot = host.find('.', from);
      if (!domain_component(host.substr(from, dot - from))) return false;
      if (dot == std::string_view::npos) break;
      from = dot + 1;
    }
  }
  if (s.empty()) return true;
  if (s.front() != ':' || s.size() == 1) return false;
  for (char c : s.substr(1))
    if (!ascii::is_digit(c)) return false;
  return true;
}

// [a-z0-9]+ (separator [a-z0-9]+)*, separator "." | "_" | "__" | "-"+.
bool path_component(std::string_view s) {
  if (s.empty() || !lower_alnum(s.front()) || !lower_alnum(s.back())) return false;
  for (std::size_t i = 0; i < s.size();) {
    if (lower_alnum(s[i])) {
      ++i;
      continue;
    }
    std::size_t run = i;
    while (run < s.size() && !lower_alnum(s[run])) ++run;
    const std::string_view sep = s.substr(i, run - i);
    const bool dashes = sep.find_first_not_of('-') == std::string_view::npos;
    if (!(sep == "." || sep == "_" || sep == "__" || dashes)) return false;
    i = run;
  }
  return true;
}

bool tag(std::string_view s) {
  if (s.empty() || s.size() > kMaxTagBytes || !word(s.front())) return false;
  for (char c : s)
    if (!word(c) && c != '.' && c != '-') return false;
  return true;
}

// "" when `d` is a digest the kubelet accepts, else why not.
std::string digest_problem(std::string_view d) {
  const std::size_t colon = d.find(':');
  if (colon == 0 || colon == std::string_view::npos || colon + 1 == d.size())
    return "digest \"" + std::string(d) + "\" is not <algorithm>:<hex>";
  const std::string_view algorithm = d.substr(0, colon), hex = d.substr(colon + 1);
  const std::size_t want = algorithm == "sha256" ? 64 : algorithm == "sha384" ? 96 : algorithm == "sha512" ? 128 : 0;
  if (want == 0) return "digest algorithm \"" + std::string(algorithm) + "\" is not sha256, sha384 or sha512";
  if (hex.size() != want)
    return "a " + std::string(algorithm) + " digest has " + std::to_string(want) + " hex digits, not " +
           std::to_string(hex.size());
  for (char c : hex)
    if (!lower_hex(c)) return "a digest is written in lower-case hex digits (0-9, a-f)";
  return "";
}

// "" when `image` parses as ParseNormalizedNamed parses it, else why not.
std::string reference_problem(std::string_view image) {
  if (image.size() == 64 && std::all_of(image.begin(), image.end(), lower_hex))
    return "a bare 64-digit hex string reads as an image ID, not a repository name";
  std::string_view rest = image, digest;
  if (const std::size_t at = rest.find('@'); at != std::string_view::npos) {
    digest = rest.substr(at + 1);
    rest = rest.substr(0, at);
    if (auto problem = digest_problem(digest); !problem.empty()) return problem;
  }
  // The registry: the first component when it names one (a dot or a colon in it, localhost, or upper case).
  std::string_view registry;
  if (const std::size_t slash = rest.find('/'); slash != std::string_view::npos) {
    const std::string_view first = rest.substr(0, slash);
    const bool upper = std::any_of(first.begin(), first.end(), [](char c) { return c >= 'A' && c <= 'Z'; });
    if (first.find_first_of(".:") != std::string_view::npos || first == "localhost" || upper) {
      registry = first;
      rest = rest.substr(slash + 1);
      if (!domain(registry))
        return "registry \"" + std::string(registry) + "\" is not a host name with an optional port";
    }
  }
  // The tag: after a colon past the last slash.
  std::string_view repository = rest;
  const std::size_t last_slash = rest.rfind('/');
  if (const std::size_t colon = rest.find(':', last_slash == std::string_view::npos ? 0 : last_slash);
      colon != std::string_view::npos) {
    repository = rest.substr(0, colon);
    const std::string_view t = rest.substr(colon + 1);
    if (!tag(t))
      return "tag \"" + std::string(t) +
             "\" is not 1 to 128 letters, digits, '_', '.' or '-' (not starting with '.' or '-')";
  }
  if (std::any_of(repository.begin(), repository.end(), [](char c) { return c >= 'A' && c <= 'Z'; }))
    return "repository name \"" + std::string(repository) + "\" must be lower case";
  if (repository.empty()) return "the repository name is empty";
  // docker.io's single names are library/<name>; the path length counts that prefix.
  const bool official = registry.empty() && repository.find('/') == std::string_view::npos;
  if (repository.size() + (official ? 8 : 0) > kMaxPathBytes)
    return "the repository name is longer than " + std::to_string(kMaxPathBytes) + " characters";
  for (std::size_t from = 0;;) {
    const std::size_t slash = repository.find('/', from);
    const std::string_view component = repository.substr(from, slash - from);
    if (!path_component(component))
      return "repository path component \"" + std::string(component) +
             "\" is not lower-case letters and digits joined by '.', '_', '__' or dashes";
    if (slash == std::string_view::npos) break;
    from = slash + 1;
  }
  return "";
}

// The containers of one PodSpec.
void each_container_image(const json::Value& spec, const std::string& spec_path, const Sink& sink) {
  for (const char* list : {"containers", "initContainers", "ephemeralContainers"}) {
    const json::Value* items = json::find(spec, list);
    if (!items || !items->IsArray()) continue;
    for (rapidjson::SizeType i = 0; i < items->Size(); ++i) {
      const json::Value& c = (*items)[i];
      const json::Value* image = c.IsObject() ? json::find(c, "image") : nullptr;
      if (!image || !image->IsString() || image->GetStringLength() == 0) continue;  // core/v1's to report
      ParseNormalizedNamed(std::string_view(image->GetString(), image->GetStringLength()),
                           spec_path + "." + list + "[" + std::to_string(i) + "].image", sink);
    }
  }
}

}  // namespace

void ParseNormalizedNamed(std::string_view image, const std::string& path, const Sink& sink) {
  // Surrounding whitespace is core/v1's (validateContainerOnlyForPod); judge the rest.
  while (!image.empty() && (image.front() == ' ' || image.front() == '\t')) image.remove_prefix(1);
  while (!image.empty() && (image.back() == ' ' || image.back() == '\t')) image.remove_suffix(1);
  if (image.empty()) return;
  if (const std::string problem = reference_problem(image); !problem.empty())
    sink.error(path, "ParseNormalizedNamed", kSource,
               "image \"" + std::string(image) + "\" is not an image reference the kubelet can pull (" + problem +
                   "): its container would wait with InvalidImageName and the Pod never start");
}

void validate_container_images(const json::Value& pod_spec, const std::string& spec_path, const Sink& sink) {
  if (pod_spec.IsObject()) each_container_image(pod_spec, spec_path, sink);
}

}  // namespace cfo::validation::rules
