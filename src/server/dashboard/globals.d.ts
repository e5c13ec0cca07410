// The vendored lightweight-charts (its standalone build, served at /dashboard/vendor/lightweight-charts.js,
// sets the global `LightweightCharts`), declared only as far as the dashboard uses it, for the
// dashboard's type check (tsconfig.dashboard.json). Written from the package's dist/typings.d.ts
// (the version in package.json); only the horizontal scale of UTC seconds is used. Not served: the
// server serves the dashboard's .html, .css and .js files only (src/server/dashboard-files.ts).

declare namespace LightweightCharts {
  /** Unix seconds. */
  type Time = number;

  /** A period without a value (a gap in the line). */
  interface WhitespaceData {
    time: Time;
  }
  interface LineData extends WhitespaceData {
    value: number;
  }
  interface CandlestickData extends WhitespaceData {
    open: number;
    high: number;
    low: number;
    close: number;
  }

  type LineWidth = 1 | 2 | 3 | 4;
  /** 0 solid, 1 dotted, 2 dashed, 3 large dashed, 4 sparse dotted. */
  type LineStyle = 0 | 1 | 2 | 3 | 4;

  interface CustomPriceFormat {
    type: 'custom';
    minMove?: number;
    formatter: (price: number) => string;
  }

  interface LineSeriesOptions {
    color?: string;
    lineWidth?: LineWidth;
    title?: string;
    priceLineVisible?: boolean;
    lastValueVisible?: boolean;
    priceFormat?: CustomPriceFormat;
  }
  interface AreaSeriesOptions {
    lineColor?: string;
    topColor?: string;
    bottomColor?: string;
    priceFormat?: CustomPriceFormat;
  }
  interface CandlestickSeriesOptions {
    upColor?: string;
    downColor?: string;
    borderVisible?: boolean;
    wickUpColor?: string;
    wickDownColor?: string;
  }

  /** Each series type: the data it draws and its options. */
  interface SeriesTypes {
    Line: { data: LineData | WhitespaceData; options: LineSeriesOptions };
    Area: { data: LineData | WhitespaceData; options: AreaSeriesOptions };
    Candlestick: { data: CandlestickData | WhitespaceData; options: CandlestickSeriesOptions };
  }
  type SeriesType = keyof SeriesTypes;

  interface SeriesDefinition<T extends SeriesType> {
    readonly type: T;
  }

  interface CreatePriceLineOptions {
    price: number;
    color?: string;
    lineWidth?: LineWidth;
    lineStyle?: LineStyle;
    axisLabelVisible?: boolean;
  }

  interface ISeriesApi<T extends SeriesType> {
    setData(data: SeriesTypes[T]['data'][]): void;
    update(bar: SeriesTypes[T]['data']): void;
    data(): readonly SeriesTypes[T]['data'][];
    applyOptions(options: SeriesTypes[T]['options']): void;
    createPriceLine(options: CreatePriceLineOptions): unknown;
  }

  interface ITimeScaleApi {
    fitContent(): void;
  }

  interface ChartOptions {
    height?: number;
    autoSize?: boolean;
    layout?: { background?: { color?: string }; textColor?: string; attributionLogo?: boolean };
    grid?: { vertLines?: { color?: string }; horzLines?: { color?: string } };
    timeScale?: { timeVisible?: boolean; secondsVisible?: boolean; borderColor?: string };
    rightPriceScale?: { borderColor?: string };
  }

  interface IChartApi {
    /** `paneIndex`: 0 the main pane, each higher index a pane under it. */
    addSeries<T extends SeriesType>(definition: SeriesDefinition<T>, options?: SeriesTypes[T]['options'], paneIndex?: number): ISeriesApi<T>;
    timeScale(): ITimeScaleApi;
    remove(): void;
  }

  interface SeriesMarker {
    time: Time;
    position: 'aboveBar' | 'belowBar' | 'inBar' | 'atPriceTop' | 'atPriceBottom' | 'atPriceMiddle';
    shape: 'circle' | 'square' | 'arrowUp' | 'arrowDown';
    color: string;
    /** Required by the atPrice* positions. */
    price?: number;
    size?: number;
    id?: string;
    text?: string;
  }

  interface ISeriesMarkersPluginApi {
    setMarkers(markers: SeriesMarker[]): void;
  }

  function createChart(container: HTMLElement, options?: ChartOptions): IChartApi;
  function createSeriesMarkers(series: ISeriesApi<SeriesType>, markers?: SeriesMarker[]): ISeriesMarkersPluginApi;
  const LineSeries: SeriesDefinition<'Line'>;
  const AreaSeries: SeriesDefinition<'Area'>;
  const CandlestickSeries: SeriesDefinition<'Candlestick'>;
}
