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
