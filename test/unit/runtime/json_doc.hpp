#pragma once
// The one JSON helper the runtime tests share.
#include <gtest/gtest.h>

#include <string>

#include "core/json.hpp"

namespace cfo::runtime::test {

/// `text` parsed as JSON; an empty document (and a test failure naming the text) when it does not parse.
inline json::Document doc(const std::string& text) {
  auto d = json::parse(text);
  EXPECT_TRUE(d.has_value()) << text;
  return d ? std::move(*d) : json::Document{};
}

}  // namespace cfo::runtime::test
