// Which command lines run with the offline heap (cmd/heap_choice.hpp).
#include "cmd/heap_choice.hpp"

#include <gtest/gtest.h>

#include <string>

using cfo::cmd::wants_offline_heap;

// render and validate, named first; never run (a long-lived process), nor `help validate` or a bare command line.
TEST(HeapChoice, OnlyRenderAndValidateAskForTheOfflineHeap) {
  std::string self = "codeflare-operator", render = "render", validate = "validate", run = "run", help = "help";
  char* with_render[] = {self.data(), render.data(), nullptr};
  char* with_validate[] = {self.data(), validate.data(), nullptr};
  char* with_run[] = {self.data(), run.data(), nullptr};
  char* help_validate[] = {self.data(), help.data(), validate.data(), nullptr};
  char* alone[] = {self.data(), nullptr};
  EXPECT_TRUE(wants_offline_heap(2, with_render));
  EXPECT_TRUE(wants_offline_heap(2, with_validate));
  EXPECT_FALSE(wants_offline_heap(2, with_run));
  EXPECT_FALSE(wants_offline_heap(3, help_validate));
  EXPECT_FALSE(wants_offline_heap(1, alone));
}
