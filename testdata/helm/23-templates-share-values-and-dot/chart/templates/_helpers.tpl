{{/* As bitnami's charts keep a generated password: the first template to need it sets it. */}}
{{- define "shared.password" -}}
{{- if not .Values.global.password -}}
{{- $_ := set .Values.global "password" (printf "made-by-%s" (base .Template.Name)) -}}
{{- end -}}
{{- .Values.global.password -}}
{{- end -}}
