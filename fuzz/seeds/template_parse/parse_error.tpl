a: {{ nosuch }}
