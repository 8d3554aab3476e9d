mod check;
mod figures;
mod hand;
mod props;
mod tables;
