{{ toYaml .users }}
---
{{ toYamlPretty .users }}