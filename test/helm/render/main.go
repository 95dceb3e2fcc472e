// helm-render renders a Helm 3 chart (Chart.yaml apiVersion v2) the way `helm template --include-crds` does, for
// tests on machines without the helm binary. It uses the same building blocks as Helm: Go's text/template, the
// sprig function map (minus env and expandenv, which Helm removes) and sigs.k8s.io/yaml for toYaml/fromYaml and
// for reading values, so number formatting, key order and quoting come out as Helm's.
//
// Usage:
//
//	helm-render [flags] CHART_DIR
//	  -f, --values FILE     values file merged over the chart's values.yaml (repeatable; later files win)
//	  --release NAME        .Release.Name (default "release-name", as helm template)
//	  --namespace NS        .Release.Namespace (default "default")
//	  --kube-version V      .Capabilities.KubeVersion, also checked against Chart.yaml kubeVersion (default v1.20.0)
//	  --api-versions GV     extra entries of .Capabilities.APIVersions (repeatable)
//	  --skip-crds           leave out the files of the chart's top-level crds/ folder
//	  --notes FILE          write the rendered templates/NOTES.txt there
//	  --strict              a reference to a map key that does not exist is an error (like helm lint --strict)
//
// Output on stdout: the chart's crds/ files first (whole and as they are: Helm never templates them), then every
// rendered template except partials (_*.tpl) and NOTES.txt, one YAML document per object, each introduced by
// "---\n# Source: <chart>/<path>\n", ordered by Helm's install order of kinds (then by file name). Blank documents
// are left out, as Helm leaves them out; documents holding only comments stay, as in Helm's output.
// Exit code 1 with the error on stderr when the chart is refused: `fail` or `required` in a template, a parse error,
// a rendered document that is not YAML or has no kind, or a kubeVersion constraint that --kube-version does not meet.
//
// Not emulated: subcharts (charts/ or dependencies are an error), values.schema.json (a warning), .helmignore,
// --set, hooks (rendered like any other object), lookup (always returns an empty map, as in helm template),
// toToml (an error).
package main

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strings"
	"text/template"

	"github.com/Masterminds/semver/v3"
	"github.com/Masterminds/sprig/v3"
	"sigs.k8s.io/yaml"
)

// ChartMetadata is .Chart: Chart.yaml with Helm's capitalised field names.
type ChartMetadata struct {
	APIVersion   string            `json:"apiVersion"`
	Name         string            `json:"name"`
	Version      string            `json:"version"`
	KubeVersion  string            `json:"kubeVersion,omitempty"`
	Description  string            `json:"description,omitempty"`
	Type         string            `json:"type,omitempty"`
	Keywords     []string          `json:"keywords,omitempty"`
	Home         string            `json:"home,omitempty"`
	Sources      []string          `json:"sources,omitempty"`
	Dependencies []interface{}     `json:"dependencies,omitempty"`
	Maintainers  []interface{}     `json:"maintainers,omitempty"`
	Icon         string            `json:"icon,omitempty"`
	AppVersion   string            `json:"appVersion,omitempty"`
	Deprecated   bool              `json:"deprecated,omitempty"`
	Annotations  map[string]string `json:"annotations,omitempty"`
	Condition    string            `json:"condition,omitempty"`
	Tags         string            `json:"tags,omitempty"`
}

// KubeVersion is .Capabilities.KubeVersion.
type KubeVersion struct {
	Version string
	Major   string
	Minor   string
}

func (k KubeVersion) String() string     { return k.Version }
func (k KubeVersion) GitVersion() string { return k.Version }

// VersionSet is .Capabilities.APIVersions.
type VersionSet []string

// Has tells whether a group/version (or group/version/Kind) is served.
func (v VersionSet) Has(apiVersion string) bool {
	for _, x := range v {
		if x == apiVersion {
			return true
		}
	}
	return false
}

// HelmVersion is .Capabilities.HelmVersion.
type HelmVersion struct {
	Version   string
	GitCommit string
	GoVersion string
}

// Capabilities is .Capabilities.
type Capabilities struct {
	KubeVersion KubeVersion
	APIVersions VersionSet
	HelmVersion HelmVersion
}

// Files is .Files: the chart's files outside templates/, Chart.yaml and values.yaml, by path from the chart root.
type Files map[string][]byte

func (f Files) GetBytes(name string) []byte { return f[name] }
func (f Files) Get(name string) string      { return string(f[name]) }

// Glob keeps the files whose path matches a path.Match pattern.
func (f Files) Glob(pattern string) Files {
	out := Files{}
	for name, data := range f {
		if ok, _ := path.Match(pattern, name); ok {
			out[name] = data
		}
	}
	return out
}

// Lines splits a file into its lines.
func (f Files) Lines(name string) []string {
	s := string(f[name])
	if s == "" {
		return []string{}
	}
	return strings.Split(strings.TrimSuffix(s, "\n"), "\n")
}

// AsConfig renders the files as ConfigMap data (base names as keys).
func (f Files) AsConfig() string {
	m := map[string]string{}
	for name, data := range f {
		m[path.Base(name)] = string(data)
	}
	return toYAML(m)
}

// AsSecrets renders the files as Secret data (base names as keys, values in base64).
func (f Files) AsSecrets() string {
	m := map[string]string{}
	for name, data := range f {
		m[path.Base(name)] = base64.StdEncoding.EncodeToString(data)
	}
	return toYAML(m)
}

// --- Helm's own template functions -------------------------------------------------------------------------------

// toYAML: sigs.k8s.io/yaml output without the final newline; an error gives "" (Helm swallows it too).
func toYAML(v interface{}) string {
	out, err := yaml.Marshal(v)
	if err != nil {
		return ""
	}
	return strings.TrimSuffix(string(out), "\n")
}

func fromYAML(s string) map[string]interface{} {
	m := map[string]interface{}{}
	if err := yaml.Unmarshal([]byte(s), &m); err != nil {
		m["Error"] = err.Error()
	}
	return m
}

func fromYAMLArray(s string) []interface{} {
	a := []interface{}{}
	if err := yaml.Unmarshal([]byte(s), &a); err != nil {
		a = []interface{}{err.Error()}
	}
	return a
}

func toJSON(v interface{}) string {
	out, err := json.Marshal(v)
	if err != nil {
		return ""
	}
	return string(out)
}

func fromJSON(s string) map[string]interface{} {
	m := map[string]interface{}{}
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		m["Error"] = err.Error()
	}
	return m
}

func fromJSONArray(s string) []interface{} {
	a := []interface{}{}
	if err := json.Unmarshal([]byte(s), &a); err != nil {
		a = []interface{}{err.Error()}
	}
	return a
}

// maxIncludeDepth bounds recursive include calls, so a template that includes itself fails instead of hanging.
const maxIncludeDepth = 1000

type renderer struct {
	root  *template.Template
	depth map[string]int
}

func (r *renderer) funcs() template.FuncMap {
	f := sprig.TxtFuncMap()
	delete(f, "env")
	delete(f, "expandenv")
	f["toYaml"] = toYAML
	f["fromYaml"] = fromYAML
	f["fromYamlArray"] = fromYAMLArray
	f["toJson"] = toJSON
	f["fromJson"] = fromJSON
	f["fromJsonArray"] = fromJSONArray
	f["toToml"] = func(interface{}) (string, error) { return "", errors.New("toToml is not supported by helm-render") }
	f["include"] = r.include
	f["tpl"] = r.tpl
	f["required"] = func(msg string, v interface{}) (interface{}, error) {
		if v == nil {
			return nil, errors.New(msg)
		}
		if s, ok := v.(string); ok && s == "" {
			return v, errors.New(msg)
		}
		return v, nil
	}
	f["lookup"] = func(string, string, string, string) (map[string]interface{}, error) {
		return map[string]interface{}{}, nil
	}
	return f
}

func (r *renderer) include(name string, data interface{}) (string, error) {
	if r.depth[name] >= maxIncludeDepth {
		return "", fmt.Errorf("include %q: nested more than %d deep", name, maxIncludeDepth)
	}
	r.depth[name]++
	defer func() { r.depth[name]-- }()
	var buf bytes.Buffer
	if err := r.root.ExecuteTemplate(&buf, name, data); err != nil {
		return "", err
	}
	return buf.String(), nil
}

// tpl renders a string as a template, with the chart's named templates available, against the given scope.
func (r *renderer) tpl(text string, data interface{}) (string, error) {
	clone, err := r.root.Clone()
	if err != nil {
		return "", err
	}
	name := "tpl"
	if m, ok := data.(map[string]interface{}); ok {
		if t, ok := m["Template"].(map[string]interface{}); ok {
			if n, ok := t["Name"].(string); ok && n != "" {
				name = n
			}
		}
	}
	t, err := clone.New(name).Parse(text)
	if err != nil {
		return "", err
	}
	var buf bytes.Buffer
	if err := t.Execute(&buf, data); err != nil {
		return "", err
	}
	return strings.ReplaceAll(buf.String(), "<no value>", ""), nil
}

// --- values -------------------------------------------------------------------------------------------------------

func readYAMLMap(file string) (map[string]interface{}, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	m := map[string]interface{}{}
	if err := yaml.Unmarshal(data, &m); err != nil {
		return nil, fmt.Errorf("%s: %v", file, err)
	}
	if m == nil {
		m = map[string]interface{}{}
	}
	return m, nil
}

// mergeOver merges src into dst: maps are merged key by key, anything else in src replaces dst's value. Used for
// the -f files, each over the ones before it (nulls are kept: they delete defaults in coalesce).
func mergeOver(dst, src map[string]interface{}) map[string]interface{} {
	out := make(map[string]interface{}, len(dst))
	for k, v := range dst {
		out[k] = v
	}
	for k, v := range src {
		sm, sIsMap := v.(map[string]interface{})
		dm, dIsMap := out[k].(map[string]interface{})
		if sIsMap && dIsMap {
			out[k] = mergeOver(dm, sm)
		} else {
			out[k] = v
		}
	}
	return out
}

// coalesce lays the user's values over the chart defaults: a user value wins, maps merge recursively, and a user
// null removes the key altogether.
func coalesce(user, defaults map[string]interface{}) map[string]interface{} {
	out := make(map[string]interface{}, len(defaults))
	for k, v := range defaults {
		out[k] = v
	}
	for k, v := range user {
		if v == nil {
			delete(out, k)
			continue
		}
		um, uIsMap := v.(map[string]interface{})
		dm, dIsMap := out[k].(map[string]interface{})
		switch {
		case uIsMap && dIsMap:
			out[k] = coalesce(um, dm)
		case uIsMap != dIsMap && out[k] != nil:
			fmt.Fprintf(os.Stderr, "helm-render: warning: value %q replaces a %T with a %T\n", k, out[k], v)
			out[k] = v
		default:
			out[k] = v
		}
	}
	return out
}

// --- output -------------------------------------------------------------------------------------------------------

// installOrder is Helm's order of kinds for installing a release; other kinds come after, by kind name.
var installOrder = []string{
	"PriorityClass", "Namespace", "NetworkPolicy", "ResourceQuota", "LimitRange", "PodSecurityPolicy",
	"PodDisruptionBudget", "ServiceAccount", "Secret", "SecretList", "ConfigMap", "StorageClass", "PersistentVolume",
	"PersistentVolumeClaim", "CustomResourceDefinition", "ClusterRole", "ClusterRoleList", "ClusterRoleBinding",
	"ClusterRoleBindingList", "Role", "RoleList", "RoleBinding", "RoleBindingList", "Service", "DaemonSet", "Pod",
	"ReplicationController", "ReplicaSet", "Deployment", "HorizontalPodAutoscaler", "StatefulSet", "Job", "CronJob",
	"IngressClass", "Ingress", "APIService",
}

type manifest struct {
	source string
	kind   string
	body   string
}

// docSeparator is a line holding "---", possibly followed by blanks or a comment.
var docSeparator = regexp.MustCompile(`(?m)^---[ \t]*(#.*)?$`)

// splitDocuments cuts a rendered file into its YAML documents, dropping the blank ones, and checks that each of the
// others is a YAML mapping with apiVersion and kind, or holds only comments.
func splitDocuments(source, text string) ([]manifest, error) {
	var out []manifest
	for i, part := range docSeparator.Split(text, -1) {
		body := strings.TrimSpace(part)
		if body == "" {
			continue
		}
		var obj interface{}
		if err := yaml.Unmarshal([]byte(body), &obj); err != nil {
			return nil, fmt.Errorf("YAML parse error on %s (document %d): %v", source, i, err)
		}
		if obj == nil {
			// Comments only: Helm keeps such a document in its output (kubectl and Helm's install skip it).
			out = append(out, manifest{source: source, body: body})
			continue
		}
		m, ok := obj.(map[string]interface{})
		if !ok {
			return nil, fmt.Errorf("%s (document %d): not a YAML mapping", source, i)
		}
		kind, _ := m["kind"].(string)
		apiVersion, _ := m["apiVersion"].(string)
		if kind == "" || apiVersion == "" {
			return nil, fmt.Errorf("%s (document %d): an object without apiVersion or kind", source, i)
		}
		out = append(out, manifest{source: source, kind: kind, body: body})
	}
	return out, nil
}

func sortByKind(ms []manifest) {
	rank := map[string]int{}
	for i, k := range installOrder {
		rank[k] = i
	}
	sort.SliceStable(ms, func(i, j int) bool {
		ri, iKnown := rank[ms[i].kind]
		rj, jKnown := rank[ms[j].kind]
		switch {
		case iKnown && jKnown:
			return ri < rj
		case iKnown != jKnown:
			return iKnown
		default:
			return ms[i].kind < ms[j].kind
		}
	})
}

// Helm-style error text for fail and required: "execution error at (chart/templates/x.yaml:3:4): message", with the
// place of the outermost template and the message of the innermost call.
var (
	execPlace   = regexp.MustCompile(`template: (\S+?):(\d+:\d+): executing`)
	execMessage = regexp.MustCompile(`error calling \w+: `)
)

func cleanError(err error) string {
	msg := err.Error()
	place := execPlace.FindStringSubmatch(msg)
	calls := execMessage.FindAllStringIndex(msg, -1)
	if place == nil || calls == nil {
		return msg
	}
	return fmt.Sprintf("execution error at (%s:%s): %s", place[1], place[2], msg[calls[len(calls)-1][1]:])
}

// --- main ---------------------------------------------------------------------------------------------------------

type stringList []string

func (s *stringList) String() string     { return strings.Join(*s, ",") }
func (s *stringList) Set(v string) error { *s = append(*s, v); return nil }

func die(format string, args ...interface{}) {
	fmt.Fprintf(os.Stderr, "helm-render: "+format+"\n", args...)
	os.Exit(1)
}

func main() {
	var valueFiles, apiVersions stringList
	release := flag.String("release", "release-name", ".Release.Name")
	namespace := flag.String("namespace", "default", ".Release.Namespace")
	kubeVersion := flag.String("kube-version", "v1.20.0", ".Capabilities.KubeVersion")
	skipCRDs := flag.Bool("skip-crds", false, "leave out the chart's crds/ folder")
	notesFile := flag.String("notes", "", "write the rendered NOTES.txt to this file")
	strict := flag.Bool("strict", false, "fail on a reference to a missing map key")
	flag.Var(&valueFiles, "f", "values file (repeatable)")
	flag.Var(&valueFiles, "values", "values file (repeatable)")
	flag.Var(&apiVersions, "api-versions", "extra .Capabilities.APIVersions entry (repeatable)")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: helm-render [flags] CHART_DIR")
		flag.PrintDefaults()
		os.Exit(2)
	}
	chartDir := flag.Arg(0)

	// Chart.yaml
	var meta ChartMetadata
	raw, err := os.ReadFile(filepath.Join(chartDir, "Chart.yaml"))
	if err != nil {
		die("%v", err)
	}
	if err := yaml.Unmarshal(raw, &meta); err != nil {
		die("Chart.yaml: %v", err)
	}
	if meta.APIVersion != "v2" && meta.APIVersion != "v1" {
		die("Chart.yaml: apiVersion %q is not a Helm 3 chart API version (v2, or v1)", meta.APIVersion)
	}
	if meta.Name == "" || meta.Version == "" {
		die("Chart.yaml: name and version are required")
	}
	if _, err := semver.StrictNewVersion(meta.Version); err != nil {
		die("Chart.yaml: version %q is not SemVer 2: %v", meta.Version, err)
	}
	if len(meta.Dependencies) > 0 {
		die("Chart.yaml: dependencies (subcharts) are not supported by helm-render")
	}
	if _, err := os.Stat(filepath.Join(chartDir, "charts")); err == nil {
		die("charts/: subcharts are not supported by helm-render")
	}
	if _, err := os.Stat(filepath.Join(chartDir, "values.schema.json")); err == nil {
		fmt.Fprintln(os.Stderr, "helm-render: warning: values.schema.json is not checked")
	}
	kv, err := semver.NewVersion(*kubeVersion)
	if err != nil {
		die("--kube-version %q: %v", *kubeVersion, err)
	}
	if meta.KubeVersion != "" {
		c, err := semver.NewConstraint(meta.KubeVersion)
		if err != nil {
			die("Chart.yaml: kubeVersion %q: %v", meta.KubeVersion, err)
		}
		if !c.Check(kv) {
			die("chart requires kubeVersion: %s which is incompatible with Kubernetes %s", meta.KubeVersion, *kubeVersion)
		}
	}

	// .Values
	defaults := map[string]interface{}{}
	if _, err := os.Stat(filepath.Join(chartDir, "values.yaml")); err == nil {
		if defaults, err = readYAMLMap(filepath.Join(chartDir, "values.yaml")); err != nil {
			die("%v", err)
		}
	}
	user := map[string]interface{}{}
	for _, f := range valueFiles {
		m, err := readYAMLMap(f)
		if err != nil {
			die("%v", err)
		}
		user = mergeOver(user, m)
	}
	values := coalesce(user, defaults)

	// Templates, CRDs and other files.
	templates := map[string]string{}
	var crdFiles []string
	files := Files{}
	err = filepath.WalkDir(chartDir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(chartDir, p)
		rel = filepath.ToSlash(rel)
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		switch {
		case strings.HasPrefix(rel, "templates/"):
			templates[meta.Name+"/"+rel] = string(data)
		case rel == "Chart.yaml" || rel == "values.yaml" || rel == "values.schema.json":
		default:
			files[rel] = data
			ext := path.Ext(rel)
			if strings.HasPrefix(rel, "crds/") && (ext == ".yaml" || ext == ".yml" || ext == ".json") {
				crdFiles = append(crdFiles, rel)
			}
		}
		return nil
	})
	if err != nil {
		die("%v", err)
	}
	sort.Strings(crdFiles)

	r := &renderer{depth: map[string]int{}}
	r.root = template.New("gotpl")
	if *strict {
		r.root.Option("missingkey=error")
	} else {
		r.root.Option("missingkey=zero")
	}
	r.root.Funcs(r.funcs())
	names := make([]string, 0, len(templates))
	for n := range templates {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		if _, err := r.root.New(n).Parse(templates[n]); err != nil {
			die("parse error: %v", err)
		}
	}

	caps := Capabilities{
		KubeVersion: KubeVersion{Version: "v" + kv.String(), Major: fmt.Sprint(kv.Major()), Minor: fmt.Sprint(kv.Minor())},
		APIVersions: append(VersionSet{
			"v1", "apps/v1", "batch/v1", "policy/v1beta1", "autoscaling/v1", "autoscaling/v2beta2",
			"networking.k8s.io/v1", "rbac.authorization.k8s.io/v1", "apiextensions.k8s.io/v1",
			"admissionregistration.k8s.io/v1", "coordination.k8s.io/v1", "events.k8s.io/v1",
			"scheduling.k8s.io/v1", "storage.k8s.io/v1", "certificates.k8s.io/v1",
		}, apiVersions...),
		HelmVersion: HelmVersion{Version: "v3", GoVersion: runtime.Version()},
	}
	rel := map[string]interface{}{
		"Name": *release, "Namespace": *namespace, "Service": "Helm",
		"IsInstall": true, "IsUpgrade": false, "Revision": 1,
	}

	var out []manifest
	for _, n := range names {
		base := path.Base(n)
		if strings.HasPrefix(base, "_") {
			continue // partials only hold named templates
		}
		scope := map[string]interface{}{
			"Values":       values,
			"Release":      rel,
			"Chart":        &meta,
			"Capabilities": &caps,
			"Files":        files,
			"Template":     map[string]interface{}{"Name": n, "BasePath": meta.Name + "/templates"},
		}
		var buf bytes.Buffer
		if err := r.root.ExecuteTemplate(&buf, n, scope); err != nil {
			die("%s", cleanError(err))
		}
		text := strings.ReplaceAll(buf.String(), "<no value>", "")
		if base == "NOTES.txt" {
			if *notesFile != "" {
				if err := os.WriteFile(*notesFile, []byte(text), 0o644); err != nil {
					die("%v", err)
				}
			}
			continue
		}
		docs, err := splitDocuments(n, text)
		if err != nil {
			die("%v", err)
		}
		out = append(out, docs...)
	}
	sortByKind(out)

	var b strings.Builder
	if !*skipCRDs {
		// Each CRD file whole and as it is (Helm neither templates nor splits them), after checking it parses.
		for _, f := range crdFiles {
			if _, err := splitDocuments(meta.Name+"/"+f, string(files[f])); err != nil {
				die("%v", err)
			}
			fmt.Fprintf(&b, "---\n# Source: %s/%s\n%s\n", meta.Name, f, files[f])
		}
	}
	for _, m := range out {
		fmt.Fprintf(&b, "---\n# Source: %s\n%s\n", m.source, m.body)
	}
	os.Stdout.WriteString(b.String())
}
