data:
{{ toYaml .Values.nested | indent 2 }}
