{{- define "selftest.fullname" -}}
{{ .Release.Name }}-{{ .Chart.Name }}
{{- end }}
{{- define "selftest.labels" -}}
app: {{ tpl .Values.labelTemplate . }}
chart: {{ .Chart.Name }}-{{ .Chart.Version }}
{{- end }}
