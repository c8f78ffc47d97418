{{- define "common.name" -}}{{ .Release.Name }}-{{ .Chart.Name }}{{- end -}}
