// The CEL subset: lexer, parser, checker and evaluator, on their own (no CRD needed).
#include <gtest/gtest.h>

#include "test_support.hpp"
#include "validation/cel/cel.hpp"
#include "validation/cel/functions.hpp"
#include "validation/cel/lexer.hpp"
#include "validation/cel/parser.hpp"

using namespace cfo;
using namespace cfo::test;
using namespace cfo::validation::cel;

namespace {

/// Compiles `rule` (the test fails when it does not compile) and evaluates it with self (and oldSelf) given as YAML.
struct Eval {
  json::Document self_doc;
  json::Document old_doc;
  Value value;
  RuleResult result;
};

Eval run(std::string_view rule, std::string_view self_yaml = "{}", std::optional<std::string_view> old_yaml = {}) {
  Eval e;
  e.self_doc = yaml1(self_yaml);
  auto p = compile(rule);
  EXPECT_TRUE(p.has_value()) << rule << ": " << (p ? "" : p.error().message);
  if (!p) return e;
  Value self = Value::from_json(e.self_doc, nullptr);
  Value old;
  if (old_yaml) {
    e.old_doc = yaml1(*old_yaml);
    old = Value::from_json(e.old_doc, nullptr);
  }
  e.value = p->evaluate(self, old_yaml ? &old : nullptr);
  e.result = evaluate_rule(*p, self, old_yaml ? &old : nullptr);
  return e;
}

Verdict verdict(std::string_view rule, std::string_view self_yaml = "{}") {
  return run(rule, self_yaml).result.verdict;
}

std::string error_of(std::string_view rule, std::string_view self_yaml = "{}") {
  auto e = run(rule, self_yaml);
  EXPECT_EQ(e.result.verdict, Verdict::Error) << rule;
  return e.result.detail;
}

std::string compile_error(std::string_view rule) {
  auto p = compile(rule);
  EXPECT_FALSE(p.has_value()) << rule << " should not compile";
  return p ? std::string() : p.error().message;
}

}  // namespace

// ---- lexer -----------------------------------------------------------------------------------------------------

TEST(CelLexer, Literals) {
  auto toks = lex(R"(.5 12 0x1F 7u 1.5 2e3 'a\'b' "c\n" r'\d' '''x'y''' "\u00e9" "\101" // comment)");
  ASSERT_TRUE(toks.has_value()) << toks.error().message;
  ASSERT_EQ(toks->size(), 13u);
  EXPECT_EQ((*toks)[0].kind, TokenKind::Double);
  EXPECT_DOUBLE_EQ((*toks)[0].dbl, 0.5);
  EXPECT_EQ((*toks)[1].kind, TokenKind::Int);
  EXPECT_EQ((*toks)[1].number, 12u);
  EXPECT_EQ((*toks)[2].number, 31u);
  EXPECT_EQ((*toks)[3].kind, TokenKind::Uint);
  EXPECT_EQ((*toks)[4].kind, TokenKind::Double);
  EXPECT_DOUBLE_EQ((*toks)[4].dbl, 1.5);
  EXPECT_DOUBLE_EQ((*toks)[5].dbl, 2000.0);
  EXPECT_EQ((*toks)[6].str, "a'b");
  EXPECT_EQ((*toks)[7].str, "c\n");
  EXPECT_EQ((*toks)[8].str, "\\d");
  EXPECT_EQ((*toks)[9].str, "x'y");
  EXPECT_EQ((*toks)[10].str, "\xC3\xA9");
  EXPECT_EQ((*toks)[11].str, "A");
  EXPECT_EQ((*toks)[12].kind, TokenKind::End);
  // After an operand, "." is member access, not the start of a number.
  auto member = lex("a.b");
  ASSERT_TRUE(member.has_value());
  EXPECT_EQ((*member)[1].text, ".");
}

TEST(CelLexer, Errors) {
  EXPECT_FALSE(lex("'open").has_value());
  EXPECT_FALSE(lex("'a\nb'").has_value());
  EXPECT_FALSE(lex("'\\q'").has_value());
  EXPECT_FALSE(lex("a # b").has_value());
  EXPECT_FALSE(lex("b'bytes'").has_value());
  EXPECT_FALSE(lex("self.?x").has_value());
  EXPECT_FALSE(lex("99999999999999999999").has_value());
  EXPECT_FALSE(lex("12abc").has_value());
  EXPECT_FALSE(lex("1e").has_value());
  EXPECT_NE(lex("a = b").error().message.find("offset 2"), std::string::npos);
}

// ---- parser and checker ------------------------------------------------------------------------------------------

TEST(CelParser, AcceptsEveryRuleShapeOfThePinnedCrds) {
  for (const char* rule : {
           "self == oldSelf",
           "self in ['ray.io/kuberay-operator', 'kueue.x-k8s.io/multikueue']",
           "!((has(self.onSuccess) || has(self.onFailure)) && has(self.deletionRules))",
           "!has(self.cohort) && has(self.resourceGroups) ? self.resourceGroups.all(rg, rg.flavors.all(f, "
           "f.resources.all(r, !has(r.borrowingLimit)))) : true",
           "self.flavors.all(x, size(x.resources) == size(self.coveredResources))",
           "!has(self.topologyName) || self.nodeLabels.size() >= 1",
           "[has(self.universal),has(self.individual)].filter(x,x==true).size() == 1",
           "((has(oldSelf.status) && oldSelf.status.conditions.exists(c, c.type == 'Admitted' && c.status == "
           "'True')))?((has(oldSelf.spec.t)?oldSelf.spec.t:0) ==  (has(self.spec.t)?self.spec.t:0)):true",
           "self.all(x, has(x.operator) && x.operator == 'Exists' ? !has(x.value) : true)",
       }) {
    auto p = compile(rule);
    EXPECT_TRUE(p.has_value()) << rule << ": " << (p ? "" : p.error().message);
  }
}

TEST(CelParser, RefusesWhatIsOutsideTheSubset) {
  EXPECT_NE(compile_error("self.quantity().isLessThan(quantity('1'))").find("not in the supported subset"),
            std::string::npos);
  EXPECT_NE(compile_error("isSorted(self)").find("isSorted"), std::string::npos);
  EXPECT_NE(compile_error("other == 1").find("unknown name 'other'"), std::string::npos);
  EXPECT_NE(compile_error("self.all(k, v, v > 0)").find("two-variable"), std::string::npos);
  EXPECT_NE(compile_error("Foo{a: 1}").find("message construction"), std::string::npos);
  EXPECT_NE(compile_error(".self").find("leading '.'"), std::string::npos);
  EXPECT_NE(compile_error("has(self)").find("has()"), std::string::npos);
  EXPECT_NE(compile_error("self.all(x.y, true)").find("variable name"), std::string::npos);
  EXPECT_NE(compile_error("self.namespace == 'a'").find("reserved"), std::string::npos);
  EXPECT_NE(compile_error("9223372036854775808").find("out of range"), std::string::npos);
  compile_error("self ==");
  compile_error("(self");
  compile_error("self)");
  compile_error("[1, 2");
  compile_error("{'a': 1");
  compile_error("a ? b");
  compile_error("");
}

TEST(CelParser, BoundsNestingInsteadOfOverflowingTheStack) {
  std::string deep(5000, '(');
  deep += "true";
  deep += std::string(5000, ')');
  EXPECT_NE(compile_error(deep).find("nested"), std::string::npos);
  std::string chain = "true";
  for (int i = 0; i < 5000; ++i) chain += " && true";
  EXPECT_NE(compile_error(chain).find("nested"), std::string::npos);
  std::string nots(5000, '!');
  EXPECT_FALSE(compile(nots + "true").has_value());
  // Within the limit it works.
  std::string ok = "true";
  for (int i = 0; i < 100; ++i) ok += " && true";
  EXPECT_EQ(verdict(ok), Verdict::Pass);
}

TEST(CelParser, RecognisesTransitionRules) {
  EXPECT_TRUE(compile("self == oldSelf")->uses_old_self());
  EXPECT_TRUE(compile("!has(oldSelf.a) || self.a == oldSelf.a")->uses_old_self());
  EXPECT_FALSE(compile("self.all(oldSelfish, true)")->uses_old_self());
  EXPECT_TRUE(compile("'a message'")->is_string_literal());
  EXPECT_FALSE(compile("'a' + 'b'")->is_string_literal());
}

// ---- evaluation ---------------------------------------------------------------------------------------------------

TEST(CelEval, LiteralsAndArithmetic) {
  EXPECT_EQ(verdict("1 + 2 * 3 == 7"), Verdict::Pass);
  EXPECT_EQ(verdict("-7 / 2 == -3 && -7 % 2 == -1"), Verdict::Pass);
  EXPECT_EQ(verdict("2u + 3u == 5u"), Verdict::Pass);
  EXPECT_EQ(verdict("1.5 + 1.5 == 3.0"), Verdict::Pass);
  EXPECT_EQ(verdict("'ab' + 'cd' == 'abcd'"), Verdict::Pass);
  EXPECT_EQ(verdict("[1] + [2] == [1, 2]"), Verdict::Pass);
  EXPECT_EQ(verdict("-9223372036854775808 < 0"), Verdict::Pass);
  EXPECT_EQ(verdict("0x10 == 16"), Verdict::Pass);
  EXPECT_EQ(verdict("{'a': 1}['a'] == 1 && {'a': 1}.a == 1"), Verdict::Pass);
  EXPECT_NE(error_of("1 / 0 == 0").find("division by zero"), std::string::npos);
  EXPECT_NE(error_of("1 % 0 == 0").find("modulus by zero"), std::string::npos);
  EXPECT_NE(error_of("9223372036854775807 + 1 > 0").find("overflow"), std::string::npos);
  EXPECT_NE(error_of("1u - 2u > 0u").find("overflow"), std::string::npos);
  EXPECT_NE(error_of("1 + 1.0 == 2.0").find("no matching overload"), std::string::npos);
  EXPECT_NE(error_of("{'a': 1, 'a': 2}.a == 1").find("duplicate"), std::string::npos);
}

TEST(CelEval, HeterogeneousEqualityAndOrdering) {
  EXPECT_EQ(verdict("1 == 1.0 && 1u == 1 && 2.5 > 2 && 3u < 4"), Verdict::Pass);
  EXPECT_EQ(verdict("1 == 'a'"), Verdict::Fail);  // different types are unequal, not an error
  EXPECT_EQ(verdict("null == null && [1, 'a'] == [1, 'a'] && {'x': [1]} == {'x': [1]}"), Verdict::Pass);
  EXPECT_EQ(verdict("[1, 2] == [2, 1]"), Verdict::Fail);  // atomic lists keep their order
  EXPECT_EQ(verdict("'abc' < 'abd' && false < true"), Verdict::Pass);
  EXPECT_NE(error_of("'a' < 1").find("no matching overload"), std::string::npos);
}

TEST(CelEval, FieldAccessAndHas) {
  const char* obj = "{a: {b: 1, s: hello}, list: [1, 2, 3], m: {k1: v1, k2: v2}, n: null}";
  EXPECT_EQ(verdict("self.a.b == 1 && has(self.a.s) && !has(self.a.zzz)", obj), Verdict::Pass);
  EXPECT_EQ(verdict("has(self.n) && self.n == null", obj), Verdict::Pass);
  EXPECT_EQ(verdict("self.list[2] == 3 && self.m['k2'] == 'v2' && 'k1' in self.m && 2 in self.list", obj),
            Verdict::Pass);
  // CEL semantics of missing fields: selecting an absent field is an error, has() of one is false, and has() on
  // an absent parent is an error as well.
  EXPECT_EQ(error_of("self.missing == 1", obj), "no such key: missing");
  EXPECT_EQ(error_of("has(self.missing.x)", obj), "no such key: missing");
  EXPECT_EQ(error_of("self.m['k3'] == 'x'", obj), "no such key: k3");
  EXPECT_NE(error_of("self.list[3] == 1", obj).find("index out of range"), std::string::npos);
  EXPECT_NE(error_of("self.a.s.x == 1", obj).find("does not support field selection"), std::string::npos);
  EXPECT_NE(error_of("has(self.a.b.c)", obj).find("does not support field selection"), std::string::npos);
}

TEST(CelEval, ErrorAbsorptionOfLogicalOperators) {
  const char* obj = "{a: 1}";
  EXPECT_EQ(verdict("self.missing == 1 || true", obj), Verdict::Pass);
  EXPECT_EQ(verdict("true || self.missing == 1", obj), Verdict::Pass);
  EXPECT_EQ(verdict("self.missing == 1 && false", obj), Verdict::Fail);
  EXPECT_EQ(verdict("false && self.missing == 1", obj), Verdict::Fail);
  EXPECT_EQ(error_of("self.missing == 1 && true", obj), "no such key: missing");
  EXPECT_EQ(error_of("false || self.missing == 1", obj), "no such key: missing");
  EXPECT_EQ(error_of("self.missing ? true : false", obj), "no such key: missing");
  EXPECT_EQ(verdict("has(self.missing) ? self.missing == 1 : true", obj), Verdict::Pass);
  EXPECT_NE(error_of("self.a && true", obj).find("needs a bool"), std::string::npos);
  EXPECT_NE(error_of("!self.a", obj).find("needs a bool"), std::string::npos);
  EXPECT_NE(error_of("self.a", obj).find("not a bool"), std::string::npos);
}

TEST(CelEval, Macros) {
  const char* obj = "{items: [{n: 1}, {n: 2}, {m: 3}], m: {a: 1, b: 2}}";
  EXPECT_EQ(verdict("self.items.exists(x, has(x.n) && x.n == 2)", obj), Verdict::Pass);
  EXPECT_EQ(verdict("self.items.exists_one(x, has(x.m))", obj), Verdict::Pass);
  EXPECT_EQ(verdict("self.items.all(x, has(x.n))", obj), Verdict::Fail);
  EXPECT_EQ(verdict("self.items.filter(x, has(x.n)).map(x, x.n) == [1, 2]", obj), Verdict::Pass);
  EXPECT_EQ(verdict("self.items.map(x, has(x.n), x.n * 10) == [10, 20]", obj), Verdict::Pass);
  EXPECT_EQ(verdict("self.m.all(k, k in ['a', 'b']) && self.m.exists(k, self.m[k] == 2)", obj), Verdict::Pass);
  EXPECT_EQ(verdict("[].all(x, false) && ![].exists(x, true)", obj), Verdict::Pass);
  EXPECT_EQ(verdict("self.items.all(a, self.items.exists(b, b == a))", obj), Verdict::Pass);
  // all(): false wins over errors of other elements; exists(): true wins; otherwise the error is the result.
  EXPECT_EQ(verdict("self.items.all(x, x.n < 2)", obj), Verdict::Fail);
  EXPECT_EQ(error_of("self.items.all(x, x.n < 5)", obj), "no such key: n");
  EXPECT_EQ(verdict("self.items.exists(x, x.n == 1)", obj), Verdict::Pass);
  EXPECT_EQ(error_of("self.items.exists(x, x.n == 7)", obj), "no such key: n");
  EXPECT_EQ(error_of("self.items.exists_one(x, x.n == 1)", obj), "no such key: n");
  EXPECT_EQ(error_of("self.items.map(x, x.n)", obj), "no such key: n");
  EXPECT_NE(error_of("self.items[0].n.all(x, true)", obj).find("cannot iterate"), std::string::npos);
}

TEST(CelEval, StringFunctionsAndConversions) {
  const char* obj = "{s: 'Hello-World', n: '42', e: 'é'}";
  EXPECT_EQ(verdict("self.s.startsWith('Hello') && self.s.endsWith('World') && self.s.contains('-')", obj),
            Verdict::Pass);
  EXPECT_EQ(verdict("self.s.matches('^[A-Z][a-z]+-') && matches(self.s, 'World$') && !self.s.matches('^x')", obj),
            Verdict::Pass);
  EXPECT_EQ(verdict("self.s.lowerAscii() == 'hello-world' && self.s.upperAscii() == 'HELLO-WORLD'", obj),
            Verdict::Pass);
  EXPECT_EQ(verdict("'  a b '.trim() == 'a b' && ['a', 'b'].join('/') == 'a/b' && ['x'].join() == 'x'", obj),
            Verdict::Pass);
  EXPECT_EQ(verdict("size(self.e) == 1 && self.s.size() == 11 && size([1, 2]) == 2 && size({'a': 1}) == 1", obj),
            Verdict::Pass);
  EXPECT_EQ(verdict("int(self.n) == 42 && string(42) == '42' && double('1.5') == 1.5 && uint(3) == 3u", obj),
            Verdict::Pass);
  EXPECT_EQ(verdict("int(2.9) == 2 && int(-2.9) == -2 && string(true) == 'true' && bool('false') == false", obj),
            Verdict::Pass);
  EXPECT_EQ(verdict("dyn(1) == 1 && string(1.5) == '1.5'", obj), Verdict::Pass);
  EXPECT_NE(error_of("int(self.s) == 1", obj).find("cannot convert"), std::string::npos);
  EXPECT_NE(error_of("int(1e300) == 1", obj).find("overflow"), std::string::npos);
  EXPECT_NE(error_of("uint(-1) == 1u", obj).find("overflow"), std::string::npos);
  EXPECT_NE(error_of("size(1) == 1", obj).find("no matching overload"), std::string::npos);
  EXPECT_NE(error_of("self.s.matches(self.n + '(')", obj).find("invalid regular expression"), std::string::npos);
}

TEST(CelEval, OldSelf) {
  EXPECT_EQ(run("self == oldSelf", "{a: 1}", "{a: 1}").result.verdict, Verdict::Pass);
  EXPECT_EQ(run("self == oldSelf", "{a: 1}", "{a: 2}").result.verdict, Verdict::Fail);
  EXPECT_EQ(run("!has(oldSelf.t) || (has(self.t) && self.t == oldSelf.t)", "{}", "{t: x}").result.verdict,
            Verdict::Fail);
  EXPECT_EQ(run("!has(oldSelf.t) || (has(self.t) && self.t == oldSelf.t)", "{t: y}", "{}").result.verdict,
            Verdict::Pass);
  // Without an old object, oldSelf is an error value rather than a crash.
  EXPECT_NE(run("self == oldSelf", "{a: 1}").result.detail.find("oldSelf"), std::string::npos);
}

TEST(CelEval, SchemaGuidesNumbersAndListEquality) {
  auto schema = yaml1(R"({type: object, properties: {
      ratio: {type: number}, count: {type: integer},
      tags: {type: array, x-kubernetes-list-type: set, items: {type: string}},
      order: {type: array, items: {type: string}}}})");
  auto a = yaml1("{ratio: 2, count: 2, tags: [x, y], order: [x, y]}");
  auto b = yaml1("{ratio: 2, count: 2, tags: [y, x], order: [y, x]}");
  auto check = [&](std::string_view rule, const json::Value& self, const json::Value* old = nullptr) {
    auto p = compile(rule);
    EXPECT_TRUE(p.has_value()) << rule;
    Value s = Value::from_json(self, &schema);
    Value o = old ? Value::from_json(*old, &schema) : Value();
    return evaluate_rule(*p, s, old ? &o : nullptr).verdict;
  };
  // A JSON 2 is a double in a `type: number` field: double + double works, int + double does not.
  EXPECT_EQ(check("self.ratio + 0.5 == 2.5", a), Verdict::Pass);
  EXPECT_EQ(check("self.count + 0.5 == 2.5", a), Verdict::Error);
  // Sets compare without order; atomic lists with.
  EXPECT_EQ(check("self.tags == oldSelf.tags", a, &b), Verdict::Pass);
  EXPECT_EQ(check("self.order == oldSelf.order", a, &b), Verdict::Fail);
}

TEST(CelEval, EscapedFieldNames) {
  const char* obj = "{namespace: ns, a-b: 1, x.y: 2, p/q: 3, u__v: 4}";
  EXPECT_EQ(verdict("self.__namespace__ == 'ns' && self.a__dash__b == 1 && self.x__dot__y == 2", obj), Verdict::Pass);
  EXPECT_EQ(verdict("self.p__slash__q == 3 && self.u__underscores__v == 4 && has(self.__namespace__)", obj),
            Verdict::Pass);
}

// matches() uses RE2, as cel-go does: Go regexp syntax, including what ECMAScript lacks.
TEST(CelEval, MatchesReadsRe2Syntax) {
  const char* obj = "{s: 'Hello-Wörld'}";
  EXPECT_EQ(verdict("self.s.matches('(?i)^hello') && self.s.matches('\\\\pL+$') && self.s.matches('\\\\Aa?H')", obj),
            Verdict::Pass);
  EXPECT_EQ(verdict("self.s.matches('(?P<first>[A-Z])\\\\w+') && !self.s.matches('\\\\d')", obj), Verdict::Pass);
}

// A pattern RE2 refuses is a compile error that names the pattern, as kube-apiserver refuses the rule. This one
// (nested repetition) made std::regex backtrack for minutes on a 4-character string.
TEST(CelEval, PatternThatRe2RefusesIsACompileErrorNamingIt) {
  const std::string err = compile_error("self.name.matches('S*******x***********c')");
  EXPECT_NE(err.find("'S*******x***********c'"), std::string::npos) << err;
  EXPECT_NE(err.find("bad repetition operator"), std::string::npos) << err;
  // The same pattern built at run time is an evaluation error naming it, not a hang.
  EXPECT_NE(error_of("self.s.matches(self.p)", "{s: SSxc, p: 'S*******x***********c'}").find("bad repetition"),
            std::string::npos);
}

// Patterns that make a backtracking engine take exponential time run in linear time with RE2; this input would
// need about 2^60 backtracking steps with std::regex. Long inputs are matched too (no recursion, no length cap).
TEST(CelEval, CatastrophicBacktrackingPatternsAreMatchedInLinearTime) {
  const std::string obj = "{s: '" + std::string(60, 'a') + "c', long: '" + std::string(100000, 'a') + "'}";
  EXPECT_EQ(verdict("!self.s.matches('^(a+)+$') && !self.s.matches('^(a|aa)*$') && self.s.matches('(a*)*c')", obj),
            Verdict::Pass);
  EXPECT_EQ(verdict("self.long.matches('^a+$') && !self.long.matches('^(a|a)*b$')", obj), Verdict::Pass);
}

// Bad input never crashes: every prefix of real rules, and the rules with characters swapped, either compile or give
// an error, and whatever compiles evaluates to some value on an arbitrary object.
TEST(CelRobustness, TruncatedAndGarbledRulesNeverCrash) {
  const std::string rules[] = {
      "!has(self.cohort) && has(self.resourceGroups) ? self.resourceGroups.all(rg, rg.flavors.all(f, "
      "f.resources.all(r, !has(r.borrowingLimit)))) : true",
      "[has(self.universal),has(self.individual)].filter(x,x==true).size() == 1",
      "self.all(x, !has(x.effect) || x.effect in ['NoSchedule', 'PreferNoSchedule', 'NoExecute'])",
      "(has(oldSelf.spec.t)?oldSelf.spec.t:0) == (has(self.spec.t)?self.spec.t:0) && {'a': [1u, 2.5, \"x\"]}.a[0] > 0",
      "self.s.matches('^[a-z]+$') && int(self.n) + 1 > -3 % 2 && string(self.m) != '\\u00e9'",
  };
  auto obj = yaml1("{s: abc, n: '7', m: {a: 1}, resourceGroups: [{flavors: [{resources: [{}]}]}], spec: {t: 1}}");
  const Value self = Value::from_json(obj, nullptr);
  std::size_t compiled = 0;
  for (const auto& rule : rules) {
    for (std::size_t n = 0; n <= rule.size(); ++n) {
      for (int variant = 0; variant < 3; ++variant) {
        std::string text = rule.substr(0, n);
        if (variant == 1 && n > 1) std::swap(text[n / 2], text[n - 1]);
        if (variant == 2 && n > 0) text[n / 3] = "()[]{}.,'!?:"[n % 12];
        auto p = compile(text);
        if (!p) continue;
        ++compiled;
        (void)evaluate_rule(*p, self, &self);
        (void)evaluate_rule(*p, self, nullptr);
      }
    }
  }
  EXPECT_GT(compiled, 50u);  // the loop did exercise the evaluator
}
