module fakechecks

go 1.26
