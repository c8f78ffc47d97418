a
{{ nosuch }}