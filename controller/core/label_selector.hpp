#pragma once
// The string form of a label selector, as `kubectl get -l` and the API's `labelSelector` parameter take it
// (k8s.io/apimachinery/pkg/labels, Parse): requirements separated by commas, each one of
//   key            the label exists            !key               it does not
//   key=value      key==value                  key!=value         (value may be empty)
//   key in (v1,v2) key notin (v1,v2)           key>N  key<N       (N an integer; "()" is the one empty value)
// with a qualified-name key and label values. Whitespace around tokens is ignored.
#include <string>
#include <string_view>
#include <vector>

namespace cfo::names {

/// Checks the syntax of a label selector string. Returns one message per problem (empty: valid, the empty selector
/// included, which selects everything). Messages name the requirement (1-based) and what is wrong.
std::vector<std::string> label_selector(std::string_view selector);

}  // namespace cfo::names
