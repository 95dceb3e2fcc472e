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

{{/* Stops rendering on settings the operator cannot honour yet. */}}
{{- define "codeflare-operator.validateValues" -}}
{{- if gt (int .Values.replicaCount) 1 }}
{{- fail "replicaCount must be 0 or 1: the operator has no leader election yet, so replicas would reconcile twice" }}
{{- end }}
{{- if .Values.metrics.enabled }}
{{- fail "metrics.enabled: the operator does not serve metrics yet" }}
{{- end }}
{{- if .Values.leaderElection.enabled }}
{{- fail "leaderElection.enabled: the operator has no leader election yet" }}
{{- end }}
{{- end }}
