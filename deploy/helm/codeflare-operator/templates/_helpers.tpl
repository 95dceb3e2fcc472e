{{/* Chart name, or nameOverride; at most 63 characters (a DNS label). */}}
{{- define "codeflare-operator.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/*
Base name of the objects: fullnameOverride, else the release name, with the chart name appended unless the
release name already contains it. At most 63 characters.
*/}}
{{- define "codeflare-operator.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{/* name-version of the chart, for the helm.sh/chart label. */}}
{{- define "codeflare-operator.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* Labels that select the operator's pods; they must not change between upgrades. */}}
{{- define "codeflare-operator.selectorLabels" -}}
app.kubernetes.io/name: {{ include "codeflare-operator.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{/* Labels on every object of the release. */}}
{{- define "codeflare-operator.labels" -}}
helm.sh/chart: {{ include "codeflare-operator.chart" . }}
{{ include "codeflare-operator.selectorLabels" . }}
{{- if .Chart.AppVersion }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
{{- end }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end }}

{{/* The ServiceAccount the operator runs as. */}}
{{- define "codeflare-operator.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "codeflare-operator.fullname" .) .Values.serviceAccount.name }}
{{- else }}
{{- default "default" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{/* Labels of the metrics Service, which its ServiceMonitor selects on. */}}
{{- define "codeflare-operator.metricsSelectorLabels" -}}
{{ include "codeflare-operator.selectorLabels" . }}
app.kubernetes.io/component: metrics
{{- end }}

{{/*
Fails unless the value at .value is empty or a Go duration as the binary parses it (500ms, 15s, 1m30s, 0; a leading
minus sign allowed). .name is the values key, for the message.
*/}}
{{- define "codeflare-operator.checkDuration" -}}
{{- $v := "" }}
{{- if not (kindIs "invalid" .value) }}
{{- $v = toString .value }}
{{- end }}
{{- if and $v (not (regexMatch "^-?(0|([0-9]+([.][0-9]*)?(ns|us|µs|ms|s|m|h))+)$" $v)) }}
{{- fail (printf "%s: %q is not a duration (write it like 500ms, 15s or 1m30s)" .name $v) }}
{{- end }}
{{- end }}

{{/* gracefulShutdownTimeout as a string; empty when unset (the binary's default applies). */}}
{{- define "codeflare-operator.gracefulShutdownTimeout" -}}
{{- if not (kindIs "invalid" .Values.gracefulShutdownTimeout) }}
{{- toString .Values.gracefulShutdownTimeout }}
{{- end }}
{{- end }}

{{/* podDisruptionBudget.maxUnavailable as a string; empty when unset (minAvailable applies). */}}
{{- define "codeflare-operator.pdbMaxUnavailable" -}}
{{- if not (kindIs "invalid" .Values.podDisruptionBudget.maxUnavailable) }}
{{- toString .Values.podDisruptionBudget.maxUnavailable }}
{{- end }}
{{- end }}

{{/*
The job label of the operator's scrape target, which the alerts select: monitoring.prometheusRule.job, else the
metrics Service's name (the job a ServiceMonitor gives its targets).
*/}}
{{- define "codeflare-operator.alertsJob" -}}
{{- .Values.monitoring.prometheusRule.job | default (printf "%s-metrics" (include "codeflare-operator.fullname" .)) }}
{{- end }}

{{/*
The namespaceSelector of the CodeFlareWorkload webhook, as YAML (empty: none, every namespace): webhook.namespaceSelector
when set, else the namespaces of watchNamespaces by their kubernetes.io/metadata.name label, so that a shard's
webhook judges only the workloads its operator reconciles.
*/}}
{{- define "codeflare-operator.webhookNamespaceSelector" -}}
{{- if .Values.webhook.namespaceSelector }}
{{- toYaml .Values.webhook.namespaceSelector }}
{{- else if .Values.watchNamespaces }}
{{- $namespaces := list }}
{{- range .Values.watchNamespaces }}
{{- $namespaces = append $namespaces (toString .) }}
{{- end }}
{{- toYaml (dict "matchExpressions" (list (dict "key" "kubernetes.io/metadata.name" "operator" "In" "values" $namespaces))) }}
{{- end }}
{{- end }}

{{/*
The objectSelector of the CodeFlareWorkload webhook, as YAML (empty: none, every workload): webhook.objectSelector
when set, else labelSelector (the operator's --label-selector, kubectl's -l grammar) written as matchExpressions, one
per comma-separated requirement:
  k=v, k==v -> In [v]    k!=v -> NotIn [v]    k in (a,b) -> In [a, b]    k notin (a,b) -> NotIn [a, b]
  k -> Exists            !k -> DoesNotExist   (an empty value, as in "k=" or "k in ()", is the value "")
k>N and k<N have no LabelSelector form, and a requirement the chart cannot read stops the render: set
webhook.objectSelector then.
*/}}
{{- define "codeflare-operator.webhookObjectSelector" -}}
{{- $selector := trim (toString (.Values.labelSelector | default "")) }}
{{- if .Values.webhook.objectSelector }}
{{- toYaml .Values.webhook.objectSelector }}
{{- else if $selector }}
{{- $key := `[A-Za-z0-9]([-A-Za-z0-9_./]*[A-Za-z0-9])?` }}
{{- $value := `([A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?)?` }}
{{- /* Requirements: runs without commas, except inside one pair of parentheses. Together with the commas between
       them they must make up the whole selector, or something is left that the chart does not understand. */}}
{{- $requirements := regexFindAll `[^,()]+(\([^()]*\))?[^,()]*` $selector -1 }}
{{- if ne (join "," $requirements) $selector }}
{{- fail (printf "labelSelector %q: the chart cannot read it (it reads comma-separated k=v, k==v, k!=v, k in (...), k notin (...), k and !k) to scope the CodeFlareWorkload webhook to this shard; set webhook.objectSelector to the equivalent LabelSelector" $selector) }}
{{- end }}
{{- $expressions := list }}
{{- range $requirements }}
{{- $r := trim . }}
{{- if regexMatch (printf `^!\s*%s$` $key) $r }}
{{- $expressions = append $expressions (dict "key" (trim (trimPrefix "!" $r)) "operator" "DoesNotExist") }}
{{- else if regexMatch (printf `^%s$` $key) $r }}
{{- $expressions = append $expressions (dict "key" $r "operator" "Exists") }}
{{- else if regexMatch (printf `^%s\s*!=\s*%s$` $key $value) $r }}
{{- $parts := regexSplit `\s*!=\s*` $r 2 }}
{{- $expressions = append $expressions (dict "key" (index $parts 0) "operator" "NotIn" "values" (list (index $parts 1))) }}
{{- else if regexMatch (printf `^%s\s*==?\s*%s$` $key $value) $r }}
{{- $parts := regexSplit `\s*==?\s*` $r 2 }}
{{- $expressions = append $expressions (dict "key" (index $parts 0) "operator" "In" "values" (list (index $parts 1))) }}
{{- else if regexMatch (printf `^%s\s+(in|notin)\s*\(\s*%s(\s*,\s*%s)*\s*\)$` $key $value $value) $r }}
{{- $k := regexFind (printf `^%s` $key) $r }}
{{- $op := ternary "NotIn" "In" (hasPrefix "notin" (trim (trimPrefix $k $r))) }}
{{- $inner := regexReplaceAll `^[^(]*\(|\)$` $r "" }}
{{- $values := list }}
{{- range regexSplit `,` $inner -1 }}
{{- $values = append $values (trim .) }}
{{- end }}
{{- $expressions = append $expressions (dict "key" $k "operator" $op "values" (uniq $values)) }}
{{- else if regexMatch `[<>]` $r }}
{{- fail (printf "labelSelector %q: the requirement %q has no equivalent in a LabelSelector (> and < compare numbers), so the chart cannot scope the CodeFlareWorkload webhook to this shard; set webhook.objectSelector to a LabelSelector that selects the same workloads" $selector $r) }}
{{- else }}
{{- fail (printf "labelSelector %q: the chart cannot read the requirement %q (it reads k=v, k==v, k!=v, k in (...), k notin (...), k and !k) to scope the CodeFlareWorkload webhook to this shard; set webhook.objectSelector to the equivalent LabelSelector" $selector $r) }}
{{- end }}
{{- end }}
{{- toYaml (dict "matchExpressions" $expressions) }}
{{- end }}
{{- end }}

{{/* Stops rendering on opt-in objects that would not work: the PodDisruptionBudget, NetworkPolicy, alerts. */}}
{{- define "codeflare-operator.validateOptIn" -}}
{{- $pdb := .Values.podDisruptionBudget }}
{{- if $pdb.enabled }}
{{- if lt (int .Values.replicaCount) 2 }}
{{- fail (printf "podDisruptionBudget.enabled needs replicaCount 2 or more (it is %d): with one pod the budget either blocks every drain of its node (minAvailable 1) or protects nothing" (int .Values.replicaCount)) }}
{{- end }}
{{- if has (include "codeflare-operator.pdbMaxUnavailable" .) (list "0" "0%") }}
{{- fail "podDisruptionBudget.maxUnavailable 0 would forbid every eviction of the operator's pods, and so every drain of their nodes" }}
{{- end }}
{{- if and (not (include "codeflare-operator.pdbMaxUnavailable" .)) (regexMatch "^[0-9]+$" (toString $pdb.minAvailable)) (ge (int $pdb.minAvailable) (int .Values.replicaCount)) }}
{{- fail (printf "podDisruptionBudget.minAvailable (%d) must be below replicaCount (%d), or no pod could ever be evicted" (int $pdb.minAvailable) (int .Values.replicaCount)) }}
{{- end }}
{{- end }}
{{- if and .Values.networkPolicy.enabled (not .Values.networkPolicy.apiServer.ports) }}
{{- fail "networkPolicy.apiServer.ports must list the Kubernetes API's ports (443, 6443): an egress rule without ports allows every port" }}
{{- end }}
{{- if .Values.monitoring.prometheusRule.enabled }}
{{- if not .Values.metrics.enabled }}
{{- fail "monitoring.prometheusRule.enabled needs metrics.enabled: the alerts read the operator's metrics" }}
{{- end }}
{{- if and (not .Values.metrics.service.enabled) (not .Values.monitoring.prometheusRule.job) }}
{{- fail "monitoring.prometheusRule.enabled without metrics.service.enabled needs monitoring.prometheusRule.job: the job label your Prometheus gives the operator's pods" }}
{{- end }}
{{- end }}
{{- end }}

{{/* Stops rendering on webhook settings the apiserver or the operator would refuse. */}}
{{- define "codeflare-operator.validateWebhook" -}}
{{- $w := .Values.webhook }}
{{- if and (not $w.enabled) (or $w.guards.enabled .Values.certManager.enabled) }}
{{- fail "webhook.guards.enabled and certManager.enabled need webhook.enabled" }}
{{- end }}
{{- if $w.enabled }}
{{- range $what, $policy := dict "webhook.failurePolicy" $w.failurePolicy "webhook.guards.failurePolicy" $w.guards.failurePolicy }}
{{- if not (has (toString $policy) (list "Fail" "Ignore")) }}
{{- fail (printf "%s must be Fail or Ignore, not %q" $what (toString $policy)) }}
{{- end }}
{{- end }}
{{- range $what, $t := dict "webhook.timeoutSeconds" $w.timeoutSeconds "webhook.guards.timeoutSeconds" $w.guards.timeoutSeconds }}
{{- if or (lt (int $t) 1) (gt (int $t) 30) }}
{{- fail (printf "%s must be between 1 and 30 (the apiserver's limits), not %v" $what $t) }}
{{- end }}
{{- end }}
{{- if or (eq (int $w.port) (int .Values.healthProbe.port)) (and .Values.metrics.enabled (eq (int $w.port) (int .Values.metrics.port))) }}
{{- fail (printf "webhook.port %d is already the metrics or health probe port" (int $w.port)) }}
{{- end }}
{{- end }}
{{- end }}

{{/* Stops rendering on settings that the operator cannot run with. */}}
{{- define "codeflare-operator.validateValues" -}}
{{- if and (gt (int .Values.replicaCount) 1) (not .Values.leaderElection.enabled) }}
{{- fail (printf "replicaCount %d needs leaderElection.enabled=true: without leader election every replica would reconcile the same workloads" (int .Values.replicaCount)) }}
{{- end }}
{{- if not (has (toString .Values.logFormat) (list "text" "json")) }}
{{- fail (printf "logFormat must be text or json, not %q" (toString .Values.logFormat)) }}
{{- end }}
{{- if and .Values.metrics.serviceMonitor.enabled (not (and .Values.metrics.enabled .Values.metrics.service.enabled)) }}
{{- fail "metrics.serviceMonitor.enabled needs metrics.enabled and metrics.service.enabled: the ServiceMonitor scrapes the metrics Service" }}
{{- end }}
{{- include "codeflare-operator.validateOptIn" . }}
{{- include "codeflare-operator.validateWebhook" . }}
{{- include "codeflare-operator.checkDuration" (dict "name" "gracefulShutdownTimeout" "value" .Values.gracefulShutdownTimeout) }}
{{- include "codeflare-operator.checkDuration" (dict "name" "leaderElection.leaseDuration" "value" .Values.leaderElection.leaseDuration) }}
{{- include "codeflare-operator.checkDuration" (dict "name" "leaderElection.renewDeadline" "value" .Values.leaderElection.renewDeadline) }}
{{- include "codeflare-operator.checkDuration" (dict "name" "leaderElection.retryPeriod" "value" .Values.leaderElection.retryPeriod) }}
{{- /* terminationGracePeriodSeconds above the shutdown timeout, when that is written in whole h, m and s. */}}
{{- $t := include "codeflare-operator.gracefulShutdownTimeout" . }}
{{- if and $t (regexMatch "^([0-9]+h)?([0-9]+m)?([0-9]+s)?$" $t) }}
{{- $secs := add (mul 3600 (atoi (trimSuffix "h" (regexFind "[0-9]+h" $t)))) (mul 60 (atoi (trimSuffix "m" (regexFind "[0-9]+m" $t)))) (atoi (trimSuffix "s" (regexFind "[0-9]+s" $t))) }}
{{- if and (gt (int $secs) 0) (le (int .Values.terminationGracePeriodSeconds) (int $secs)) }}
{{- fail (printf "terminationGracePeriodSeconds (%d) must be above gracefulShutdownTimeout (%s = %d s), or the kubelet kills the operator before its orderly stop ends" (int .Values.terminationGracePeriodSeconds) $t (int $secs)) }}
{{- end }}
{{- end }}
{{- end }}
