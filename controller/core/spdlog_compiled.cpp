// spdlog's compiled part, built into our binaries from Debian's libspdlog-dev headers instead of linking
// libspdlog.so: the shared library's 520 KiB were nearly all resident in the operator (fault-around maps a small
// library whole), where the few functions we call, laid out with the rest of our code (--gc-sections and the
// hot-function order), take a fraction of that (issue 11, RSS at N).
//
// With SPDLOG_COMPILED_LIB the headers declare spdlog's functions and leave out their definitions (the "-inl.h"
// headers); this file includes those definitions once and instantiates the templates we use: the default logger's
// colour sink (stdout), stderr_sink_mt (cmd/logging) and the base sink under its two mutexes.
#ifndef SPDLOG_COMPILED_LIB
#error "cfo_spdlog is built with SPDLOG_COMPILED_LIB (CMakeLists.txt)"
#endif

#include <mutex>

#include <spdlog/common-inl.h>
#include <spdlog/details/backtracer-inl.h>
#include <spdlog/details/log_msg-inl.h>
#include <spdlog/details/log_msg_buffer-inl.h>
#include <spdlog/details/os-inl.h>
#include <spdlog/details/periodic_worker-inl.h>
#include <spdlog/details/registry-inl.h>
#include <spdlog/logger-inl.h>
#include <spdlog/pattern_formatter-inl.h>
#include <spdlog/sinks/ansicolor_sink-inl.h>
#include <spdlog/sinks/base_sink-inl.h>
#include <spdlog/sinks/sink-inl.h>
#include <spdlog/sinks/stdout_sinks-inl.h>
#include <spdlog/spdlog-inl.h>
#include <spdlog/details/console_globals.h>
#include <spdlog/details/null_mutex.h>

template class spdlog::sinks::base_sink<std::mutex>;
template class spdlog::sinks::base_sink<spdlog::details::null_mutex>;

template class spdlog::sinks::ansicolor_sink<spdlog::details::console_mutex>;
template class spdlog::sinks::ansicolor_stdout_sink<spdlog::details::console_mutex>;
template class spdlog::sinks::ansicolor_stderr_sink<spdlog::details::console_mutex>;

template class spdlog::sinks::stdout_sink_base<spdlog::details::console_mutex>;
template class spdlog::sinks::stdout_sink<spdlog::details::console_mutex>;
template class spdlog::sinks::stderr_sink<spdlog::details::console_mutex>;
