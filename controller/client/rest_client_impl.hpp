#pragma once
// Private state of RestClient, shared by rest_client.cpp (plain requests) and watch.cpp (streams).
#include <boost/asio/ssl/context.hpp>
#include <boost/beast/http/message.hpp>
#include <boost/beast/http/string_body.hpp>

#include <memory>
#include <mutex>
#include <optional>

#include "client/refreshing_file.hpp"
#include "client/rest_client.hpp"
#include "client/server_url.hpp"

namespace cfo::client {

/// How often file-backed credentials are re-read (client-go: token every minute, CA bundle every 5 minutes).
inline constexpr std::chrono::milliseconds kTokenFileMaxAgeMs{60'000};
inline constexpr std::chrono::milliseconds kCaFileMaxAgeMs{300'000};

/// Checks a request target before it is written on the wire: it must be a path ("/..."), without spaces or
/// line breaks (the HTTP request line and headers could otherwise be forged).
Result<void> check_target(const std::string& target);

struct RestClient::Impl {
  Impl(ClientConfig c, RestClientTimeouts t);

  /// The TLS context to use for the next connection; rebuilt when the CA file changed (keeping the previous one
  /// when the new bundle does not load). Error: the configuration's TLS material is unusable.
  Result<std::shared_ptr<boost::asio::ssl::context>> tls_context();

  /// The bearer token for the next request ("" for none), re-read from bearer_token_file when due.
  Result<std::string> bearer_token();

  /// What every call needs before it connects: the TLS context and the bearer token.
  struct Prepared {
    std::shared_ptr<boost::asio::ssl::context> tls;
    std::string token;
  };

  /// Checks `target` and the server URL, then gets the TLS context and the token. Errors are prefixed with `what`
  /// (e.g. "GET /api/v1/namespaces: ...").
  Result<Prepared> prepare(const std::string& what, const std::string& target);

  /// A request with the common headers (Host, User-Agent, Accept, Authorization, Content-Type when there is a body).
  boost::beast::http::request<boost::beast::http::string_body> make_request(boost::beast::http::verb verb,
                                                                            const std::string& target,
                                                                            const std::string& body,
                                                                            const std::string& content_type,
                                                                            const std::string& token) const;

  const ClientConfig cfg;
  const RestClientTimeouts timeouts;
  const Result<ServerUrl> url;

 private:
  std::mutex mu_;
  Result<std::shared_ptr<boost::asio::ssl::context>> tls_;
  std::string ca_pem_in_use_;
  std::unique_ptr<RefreshingFile> token_file_;
  std::unique_ptr<RefreshingFile> ca_file_;
};

}  // namespace cfo::client
