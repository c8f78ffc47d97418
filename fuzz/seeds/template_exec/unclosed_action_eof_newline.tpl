a {{ .s
