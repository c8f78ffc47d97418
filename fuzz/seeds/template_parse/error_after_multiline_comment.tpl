{{/*

*/}}{{ .missing.x }}