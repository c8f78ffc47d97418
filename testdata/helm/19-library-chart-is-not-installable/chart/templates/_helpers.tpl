{{- define "lib.name" -}}{{ .Chart.Name }}{{- end -}}
