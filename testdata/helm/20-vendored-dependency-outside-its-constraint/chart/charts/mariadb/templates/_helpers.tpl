{{- define "mariadb.name" -}}{{ .Release.Name }}-mariadb{{- end -}}
