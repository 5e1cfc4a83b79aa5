module fake

go 1.26
