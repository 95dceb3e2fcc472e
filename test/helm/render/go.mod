// Not for module mode: test/helm/build-render.sh builds this in GOPATH mode against Debian's Go packages, and this
// file only lets Go resolve the /v3 import paths of sprig and semver there ("minimal module compatibility").
module codeflare.dev/helm-render

go 1.19
