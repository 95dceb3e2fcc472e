#include "core/log_scope.hpp"

namespace cfo {

namespace {
thread_local LogFields t_fields;
}  // namespace

LogFields current_log_fields() { return t_fields; }

LogScope::LogScope(std::string_view key, std::string_view controller)
    : saved_(t_fields), key_(key), controller_(controller.empty() ? saved_.controller : controller) {
  t_fields = LogFields{key_, controller_};
}

LogScope::~LogScope() { t_fields = saved_; }

}  // namespace cfo
