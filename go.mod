module github.com/sbx-dev/sbx

go 1.26.8
