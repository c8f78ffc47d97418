a: {{ toJson "<no value>" }}
