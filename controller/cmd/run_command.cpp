#include <algorithm>
#include <cstdlib>
#include <iostream>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include "cmd/args.hpp"
#include "cmd/commands.hpp"
#include "cmd/logging.hpp"
#include "cmd/operations_flags.hpp"
#include "cmd/run_options.hpp"
#include "cmd/shutdown.hpp"
#include "operator/operator.hpp"

namespace cfo::cmd {

int run_command(int argc, char** argv, int first) {
  auto args = Args::parse(argc, argv, first, run_flags(), run_flag_aliases());
  if (!args) {
    std::cerr << "run: " << args.error().message << "\n" << usage_hint("run");
    return 2;
  }
  if (args->flag("help")) {
    std::cout << run_help();
    return 0;
  }
  auto options = parse_run_options(*args);
  if (!options) {
    std::cerr << "run: " << options.error().message << "\n" << usage_hint("run");
    return 2;
  }
  auto ops = parse_operations_flags(*args);  // --kube-api-qps/-burst, --log-format/-level, --graceful-shutdown-timeout
  if (!ops) {
    std::cerr << "run: " << ops.error().message << "\n" << usage_hint("run");
    return 2;
  }
  // A watch silent for its timeout plus 30 s is dead (watch_idle_limit); with a short --min-watch-timeout, watches
  // without a timeout are given up as soon.
  ops->client.timeouts.watch_idle_timeout_ms =
      std::min(ops->client.timeouts.watch_idle_timeout_ms,
               std::chrono::milliseconds((2 * options->min_watch_timeout_s + 30) * 1000));
  configure_logging(ops->log);
#if defined(__GLIBC__)
  // glibc gives a thread that allocates while another holds the lock an arena of its own, up to 8 per core, each
  // keeping the memory freed in it. The operator's threads (a watch per informer, the workers, the servers) allocate
  // little each: two arenas hold their memory together (set before any other thread starts; MALLOC_ARENA_MAX in the
  // environment still wins).
  if (std::getenv("MALLOC_ARENA_MAX") == nullptr) mallopt(M_ARENA_MAX, 2);
#endif
  // SIGTERM/SIGINT go to the shutdown thread only: it blocks them before any other thread starts.
  ShutdownControl shutdown(ops->graceful_shutdown_timeout);
  return op::run(
      *options, ops->client,
      op::StopControl{[&shutdown] { shutdown.wait(); }, [&shutdown] { shutdown.begin_stop(); }, shutdown.token()});
}

}  // namespace cfo::cmd
