// Standard base64 encoding (Secret data, caBundle), checked against RFC 4648's test vectors and decode_base64.
#include <gtest/gtest.h>

#include "client/base64.hpp"

using namespace cfo::client;

TEST(Base64Encode, Rfc4648Vectors) {
  EXPECT_EQ(encode_base64(""), "");
  EXPECT_EQ(encode_base64("f"), "Zg==");
  EXPECT_EQ(encode_base64("fo"), "Zm8=");
  EXPECT_EQ(encode_base64("foo"), "Zm9v");
  EXPECT_EQ(encode_base64("foob"), "Zm9vYg==");
  EXPECT_EQ(encode_base64("fooba"), "Zm9vYmE=");
  EXPECT_EQ(encode_base64("foobar"), "Zm9vYmFy");
}

TEST(Base64Encode, LongInputHasNoLineBreaksAndRoundTrips) {
  std::string bytes;
  for (int i = 0; i < 3000; ++i) bytes += static_cast<char>(i % 256);
  std::string text = encode_base64(bytes);
  EXPECT_EQ(text.find('\n'), std::string::npos);
  EXPECT_EQ(text.size(), 4000u);
  EXPECT_EQ(*decode_base64(text), bytes);
}
