#pragma once
// Command-line flags in the kubectl style: `--name value`, `--name=value`, `-f value`, booleans as `--name` or
// `--name=false`.
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/error.hpp"

namespace cfo::cmd {

/// Parsed flags of one subcommand. Repeated flags keep every value in order.
class Args {
 public:
  /// Parses argv[first..argc). `known` maps every accepted flag name (long form, without dashes) to whether it
  /// takes a value; `aliases` maps short names ("f") to long ones ("filename"). Errors: unknown flag, missing value,
  /// a positional argument.
  static Result<Args> parse(int argc, char** argv, int first, const std::map<std::string, bool>& known,
                            const std::map<std::string, std::string>& aliases = {});

  bool has(const std::string& name) const { return values_.count(name) > 0; }
  /// The last value given, or `fallback`.
  std::string get(const std::string& name, const std::string& fallback = {}) const;
  /// Every value given, in order.
  std::vector<std::string> all(const std::string& name) const;
  /// A boolean flag: true when given bare or as =true; `fallback` when absent.
  bool flag(const std::string& name, bool fallback = false) const;
  /// An integer flag. Error names the flag when the value is not an integer.
  Result<long> integer(const std::string& name, long fallback) const;
  /// A finite decimal number ("10", "2.5", "1e3"). Error names the flag otherwise.
  Result<double> number(const std::string& name, double fallback) const;
  /// A boolean given as `--name` (true) or `--name=true|false|1|0|yes|no`; anything else is an error naming the flag
  /// (flag() would read it as true).
  Result<bool> boolean(const std::string& name, bool fallback) const;

 private:
  std::map<std::string, std::vector<std::string>> values_;
};

/// The line after a usage error, as kubectl prints it: "See 'codeflare-operator <command> --help' for usage.\n" (the
/// help itself is for --help).
std::string usage_hint(const char* command);

/// `text` (a command's help) with every line longer than `width` columns wrapped at spaces, as kubectl folds its flag
/// help: a flag's line ("  -n, --namespace NS   description") continues under its description's column, any other
/// line under its own indentation. "(default X)" is never cut in two. A word longer than the room is left whole.
std::string wrap_help(std::string_view text, std::size_t width = 120);

}  // namespace cfo::cmd
