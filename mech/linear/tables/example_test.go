package tables_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/optdp/optdp/mech/linear"
	"github.com/optdp/optdp/mech/linear/tables"
)

// A histogram as a database's GROUP BY writes it (the same cell twice is
// summed), counted into the data vector over sex (2 values) × age group
// (3 values), cells in row-major order.
func ExampleCountCSV() {
	attrs := []linear.Attribute{{Name: "sex", Size: 2}, {Name: "age", Size: 3}}
	table := "age,sex,count\n0,0,12\n2,1,7\n1,0,5\n2,1,1\n"
	res, err := tables.CountCSV(context.Background(), attrs, strings.NewReader(table), &tables.Options{Kind: tables.Histogram})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res.X, res.Rows, res.Total)
	// Output: [12 5 0 0 0 8] 4 25
}

// A histogram read into the columns of a linear.MarginalData: one row per
// line, with its count, whatever the domain's size (the cells are never
// formed); the same cell twice stays two rows.
func ExampleReadMarginalCSV() {
	attrs := []linear.Attribute{{Name: "sex", Size: 2}, {Name: "age", Size: 3}}
	table := "age,sex,count\n0,0,12\n2,1,7\n1,0,5\n2,1,1\n"
	res, err := tables.ReadMarginalCSV(context.Background(), attrs, strings.NewReader(table), &tables.Options{Kind: tables.Histogram})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res.Data.Columns, res.Data.Counts, res.Rows, res.Total)
	// Output: [[0 1 0 1] [0 2 1 2]] [12 7 5 1] 4 25
}
