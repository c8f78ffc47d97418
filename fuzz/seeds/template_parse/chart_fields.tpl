name: {{ .Chart.Name }}
version: {{ .Chart.Version }}
api: {{ .Chart.APIVersion }}
root: {{ .Chart.IsRoot }}
